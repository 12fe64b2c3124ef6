// One answer of a node (a tip height, a head block number) shared by the reads of the next few
// moments: a watcher pass reads many addresses, and each would otherwise ask for it again.
export class Recent<T> {
  private entry: { value: Promise<T>; at: number } | null = null;

  /** `maxAgeMs` 0 reads anew every time. A failed read is not kept. */
  constructor(
    private readonly maxAgeMs: number,
    private readonly read: () => Promise<T>,
  ) {}

  get(): Promise<T> {
    const now = Date.now();
    if (this.entry && now - this.entry.at < this.maxAgeMs) return this.entry.value;
    const entry = { value: this.read(), at: now };
    this.entry = entry;
    entry.value.catch(() => {
      if (this.entry === entry) this.entry = null;
    });
    return entry.value;
  }
}
