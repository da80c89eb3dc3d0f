"""Checks a server.json against the MCP registry's JSON schema (draft-07), formats included, and
prints each place it breaks the schema; exits 1 when there is any. The release workflow runs it on
the release's server.json with the schema its `$schema` names, downloaded.

    python scripts/check-server-json.py <schema.json> <server.json>
"""
import json
import sys

from jsonschema import Draft7Validator


def main(schema_path, server_path):
    with open(schema_path, encoding="utf-8") as file:
        schema = json.load(file)
    with open(server_path, encoding="utf-8") as file:
        server = json.load(file)
    if server.get("$schema") != schema.get("$id"):
        print(f"{server_path} names the schema {server.get('$schema')}, but {schema_path} is {schema.get('$id')}; check it against the schema it names")
        return 1
    validator = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(server), key=lambda error: list(error.absolute_path))
    for error in errors:
        place = "/".join(str(part) for part in error.absolute_path) or "(the document)"
        print(f"{server_path}: {place}: {error.message}")
    print(f"{server_path}: {len(errors)} problem(s) against {schema.get('$id')}")
    return 0 if not errors else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
