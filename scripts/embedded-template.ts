// `npm install` (postinstall): makes the migrated embedded database that a new data folder starts as
// a copy of (src/db/embedded-template.ts), so that the first `npm start` or `paygate` command on a
// fresh clone does not spend seconds on initdb and the migrations. Never fails the install: without
// it the first start makes its database in place, as before.
const started = Date.now();
try {
  // Imported here, so that even a module that fails to load leaves the install alone.
  const { embeddedTemplate } = await import("../src/db/embedded-template.ts");
  const folder = await embeddedTemplate();
  console.log(`embedded database template: ${folder} (${Date.now() - started} ms)`);
} catch (error) {
  console.log(
    `embedded database template not made (${error instanceof Error ? error.message : String(error)}): a first start makes its database itself`,
  );
}
