// validate_openapi.mjs FILE - validates simtd's OpenAPI document against the
// OpenAPI 3.0 JSON schema with @seriousme/openapi-schema-validator, and checks
// that every $ref resolves. Exit 0 when valid, 1 with the errors otherwise.
import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate_openapi.mjs openapi.json");
  process.exit(2);
}
const doc = JSON.parse(readFileSync(file, "utf8"));
const validator = new Validator();
const result = await validator.validate(doc);
if (!result.valid) {
  console.error(`${file}: not a valid OpenAPI ${validator.version} document:`);
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
let dangling = 0;
(function walk(node) {
  if (Array.isArray(node)) return node.forEach(walk);
  if (node && typeof node === "object") {
    if (typeof node.$ref === "string") {
      const target = node.$ref.replace(/^#\//, "").split("/").reduce((at, key) => (at ? at[key] : undefined), doc);
      if (target === undefined) {
        console.error(`dangling $ref ${node.$ref}`);
        dangling++;
      }
    }
    Object.values(node).forEach(walk);
  }
})(doc);
if (dangling) process.exit(1);
const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
console.log(`${file}: valid OpenAPI ${validator.version} (${Object.keys(doc.paths).length} paths, ${operations} operations)`);
