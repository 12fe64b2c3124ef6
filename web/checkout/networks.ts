// The network each coin is paid on, by mode (the README's "Wallets and addresses" table): what a
// customer must pick in the wallet. The API names the coin only, so the page keeps this list.

const NETWORKS: Record<string, { live: string; test: string }> = {
  BTC: { live: "Bitcoin", test: "Bitcoin testnet" },
  LTC: { live: "Litecoin", test: "Litecoin testnet" },
  ETH: { live: "Ethereum", test: "Ethereum Sepolia testnet" },
  BNB: { live: "BNB Smart Chain (BSC)", test: "BNB Smart Chain testnet" },
  USDT: { live: "Ethereum (ERC-20)", test: "Ethereum Sepolia testnet (ERC-20)" },
};

export function networkOf(slug: string, isLive: boolean): string {
  const network = NETWORKS[slug];
  if (!network) return slug;
  return isLive ? network.live : network.test;
}
