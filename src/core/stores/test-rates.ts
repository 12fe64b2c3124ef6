// The operator's test-mode exchange rates. src/db/stores/test-rates.ts implements it.

export interface StoredTestRate {
  crypto: string;
  fiat: string;
  /** Fiat per one coin, as stored (decimal string). */
  rate: string;
  updatedAt: Date;
}

export interface TestRateStore {
  get(crypto: string, fiat: string): Promise<string | null>;
  list(): Promise<StoredTestRate[]>;
  set(crypto: string, fiat: string, rate: string): Promise<StoredTestRate>;
}
