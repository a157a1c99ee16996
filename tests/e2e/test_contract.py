"""The contract kept true (issue #16, item 8): every API case folder's
request is sent to the real daemon and its answer validated against the
response schema api/openapi.json declares for that path, method and status,
with a small JSON-schema checker (stdlib only: type, nullable, enum,
properties, required, additionalProperties, items, min/maxItems, minimum,
maximum, $ref, allOf, anyOf, oneOf). A null where the schema does not say
nullable, an undeclared property where additionalProperties is false, a
fraction where it says integer all fail."""
import json
import os
import re
import unittest

import simtd_harness as h


class SchemaError(Exception):
    pass


class Checker:
    def __init__(self, document):
        self.doc = document

    def resolve(self, schema):
        while "$ref" in schema:
            node = self.doc
            for part in schema["$ref"].lstrip("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def type_ok(self, value, kind):
        if kind == "integer":
            return isinstance(value, int) and not isinstance(value, bool)
        if kind == "number":
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        return {"string": str, "boolean": bool, "object": dict, "array": list}[kind] is type(value)

    def check(self, value, schema, path="$"):
        schema = self.resolve(schema)
        if value is None:
            if schema.get("nullable") or schema.get("type") == "null" or \
                    (isinstance(schema.get("type"), list) and "null" in schema["type"]):
                return
            if not schema or set(schema) <= {"description"}:
                return  # {} allows anything
            raise SchemaError("%s: null, and the schema does not say nullable" % path)
        for sub in schema.get("allOf", []):
            self.check(value, sub, path)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                errors = []
                for sub in schema[key]:
                    try:
                        self.check(value, sub, path)
                        break
                    except SchemaError as e:
                        errors.append(str(e))
                else:
                    raise SchemaError("%s: matches none of %s: %s" % (path, key, "; ".join(errors[:3])))
        kind = schema.get("type")
        if kind is not None:
            kinds = kind if isinstance(kind, list) else [kind]
            if not any(k != "null" and self.type_ok(value, k) for k in kinds):
                raise SchemaError("%s: %r is not %s" % (path, value if not isinstance(value, (dict, list))
                                                        else type(value).__name__, kind))
        if "enum" in schema and value not in schema["enum"]:
            raise SchemaError("%s: %r is not one of %s" % (path, value, schema["enum"]))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                raise SchemaError("%s: %r below the minimum %r" % (path, value, schema["minimum"]))
            if "maximum" in schema and value > schema["maximum"]:
                raise SchemaError("%s: %r above the maximum %r" % (path, value, schema["maximum"]))
        if isinstance(value, dict):
            props = schema.get("properties", {})
            for name in schema.get("required", []):
                if name not in value:
                    raise SchemaError("%s: required %s is missing" % (path, name))
            extra = schema.get("additionalProperties", True)
            for name, item in value.items():
                if name in props:
                    self.check(item, props[name], "%s.%s" % (path, name))
                elif extra is False:
                    raise SchemaError("%s: %s is not declared" % (path, name))
                elif isinstance(extra, dict):
                    self.check(item, extra, "%s.%s" % (path, name))
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                raise SchemaError("%s: fewer than %d items" % (path, schema["minItems"]))
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                raise SchemaError("%s: more than %d items" % (path, schema["maxItems"]))
            if "items" in schema:
                for i, item in enumerate(value):
                    self.check(item, schema["items"], "%s[%d]" % (path, i))

    def response_schema(self, method, path, status):
        for pattern, item in self.doc["paths"].items():
            rx = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(pattern)) + "$"
            if re.match(rx, path.split("?")[0]) and method.lower() in item:
                responses = item[method.lower()]["responses"]
                resp = responses.get(str(status)) or responses.get("default")
                if resp is None:
                    raise SchemaError("%s %s: status %d is not declared" % (method, path, status))
                resp = self.resolve(resp)
                content = resp.get("content", {}).get("application/json")
                return content["schema"] if content else None
        # an unknown path or method: the router's 404 / 405 carry the error body
        if status in (404, 405):
            return {"$ref": "#/components/schemas/Error"}
        return None


class SchemaCheckerCanFail(unittest.TestCase):
    def test_checker_refuses_what_it_should(self):
        c = Checker({"components": {"schemas": {"A": {"type": "object", "required": ["n"],
                                                      "additionalProperties": False,
                                                      "properties": {"n": {"type": "integer", "minimum": 0},
                                                                     "x": {"type": "number", "nullable": True}}}}}})
        ref = {"$ref": "#/components/schemas/A"}
        c.check({"n": 1, "x": None}, ref)
        for bad in ({"n": 1.5}, {"n": -1}, {"n": None}, {"n": 1, "y": 2}, {}, {"n": True}):
            with self.assertRaises(SchemaError, msg=bad):
                c.check(bad, ref)


class CaseAnswersMatchOpenApi(unittest.TestCase):
    def test_every_case_folder(self):
        with open(os.path.join(h.REPO, "api", "openapi.json")) as f:
            checker = Checker(json.load(f))
        cases = os.path.join(h.REPO, "tests", "api", "cases")
        failures, checked = [], 0
        with h.Daemon("--access-log", "off") as d:
            for name in sorted(os.listdir(cases)):
                folder = os.path.join(cases, name)
                if not os.path.isfile(os.path.join(folder, "route")):
                    continue
                method, path = open(os.path.join(folder, "route")).read().split()
                body, headers = None, {}
                if os.path.isfile(os.path.join(folder, "request.json")):
                    body = open(os.path.join(folder, "request.json"), "rb").read()
                    headers["Content-Type"] = "application/json"
                if os.path.isfile(os.path.join(folder, "content_type")):
                    headers["Content-Type"] = open(os.path.join(folder, "content_type")).read().strip()
                status, hdrs, data = d.request(method, path, body=body, headers=headers)
                if not hdrs.get("content-type", "").startswith("application/json"):
                    continue
                try:
                    schema = checker.response_schema(method, path, status)
                    if schema is None:
                        raise SchemaError("%s %s: no JSON schema for status %d" % (method, path, status))
                    checker.check(json.loads(data), schema)
                    checked += 1
                except SchemaError as e:
                    failures.append("%s: %s" % (name, e))
        print("%d answers validated, %d failed" % (checked, len(failures)))
        self.assertGreater(checked, 100)
        self.assertEqual(failures, [], "\n".join(failures))


if __name__ == "__main__":
    h.main()
