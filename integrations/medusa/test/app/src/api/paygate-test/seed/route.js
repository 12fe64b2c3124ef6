// The test app only: a sales channel, a publishable key, a secret key for the Admin API, a US region
// paid with paygate or Medusa's system provider, a EUR region (a currency paygate does not take), and a $10.00 product that needs no shipping.
const {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
} = require("@medusajs/medusa/core-flows");

exports.POST = async (req, res) => {
  const scope = req.scope;
  const { result: channels } = await createSalesChannelsWorkflow(scope).run({ input: { salesChannelsData: [{ name: "Web" }] } });
  const { result: keys } = await createApiKeysWorkflow(scope).run({
    input: {
      api_keys: [
        { title: "storefront", type: "publishable", created_by: "test" },
        { title: "admin", type: "secret", created_by: "test" },
      ],
    },
  });
  const publishable = keys.find((k) => k.type === "publishable");
  const secret = keys.find((k) => k.type === "secret");
  await linkSalesChannelsToApiKeyWorkflow(scope).run({ input: { id: publishable.id, add: [channels[0].id] } });
  const { result: regions } = await createRegionsWorkflow(scope).run({
    input: {
      regions: [
        { name: "US", currency_code: "usd", countries: ["us"], payment_providers: ["pp_paygate_paygate", "pp_system_default"] },
        { name: "EU", currency_code: "eur", countries: ["de"], payment_providers: ["pp_paygate_paygate"] },
      ],
    },
  });
  const { result: products } = await createProductsWorkflow(scope).run({
    input: {
      products: [
        {
          title: "Sticker",
          status: "published",
          options: [{ title: "Size", values: ["One"] }],
          sales_channels: [{ id: channels[0].id }],
          variants: [
            {
              title: "One",
              options: { Size: "One" },
              manage_inventory: false,
              prices: [
                { amount: 10, currency_code: "usd" },
                { amount: 9, currency_code: "eur" },
              ],
            },
          ],
        },
      ],
    },
  });
  res.json({
    publishable_key: publishable.token,
    secret_key: secret.token,
    region_id: regions[0].id,
    eur_region_id: regions[1].id,
    variant_id: products[0].variants[0].id,
  });
};
