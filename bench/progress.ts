// One line of progress per step of a benchmark: "label … summary (1.2 s)", or "failed".

/** Runs `work`, printing its label first and its summary and time after. */
export async function phase<T>(label: string, work: () => Promise<T>, summary: (value: T) => string, interrupted: () => boolean): Promise<T> {
  process.stdout.write(`${label} … `);
  const started = performance.now();
  try {
    const value = await work();
    console.log(`${summary(value)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return value;
  } catch (error) {
    console.log(interrupted() ? "interrupted" : "failed");
    throw error;
  }
}
