"""Check Kubernetes objects against the API's OpenAPI definitions.

    schema.py FILE.json...

Each FILE is what `kubectl ... -o json` printed for a manifest (its
objects one after another, or a List of them).  The definitions are those Debian's
python3-kubernetes was generated from (Kubernetes' OpenAPI, release
1.22): every field must be one the definition names, of its type, and
every required field there; the kind must be one the API creates at
that apiVersion, namespaced or not as it is.  Quantities and other
strings must be strings (the API takes a bare number for a quantity;
this check, as the definitions, does not).  Prints one line per
problem and exits 1 if there is any.
"""
import glob
import json
import os
import re
import sys

import kubernetes.client
from kubernetes.client import models

problems = []


def problem(where, what):
    problems.append(f"{where}: {what}")


# (apiVersion, kind) -> (model class, namespaced), from the create
# (POST) endpoints of the generated API classes: the paths and the
# types they return are the OpenAPI document's.
def kinds():
    found = {}
    call = re.compile(
        r"call_api\(\s*'/api(?:s/([a-z0-9.-]+))?/(v[0-9a-z]+)(/namespaces/\{namespace\})?/[a-z]+',"
        r" 'POST',.*?response_type='(\w+)'", re.S)
    apidir = os.path.join(os.path.dirname(kubernetes.client.__file__), "api")
    for path in glob.glob(os.path.join(apidir, "*_api.py")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for group, version, ns, model in call.findall(text):
            prefix = version[0].upper() + version[1:]
            if not model.startswith(prefix) or not hasattr(models, model):
                continue
            api_version = f"{group}/{version}" if group else version
            found[(api_version, model[len(prefix):])] = (getattr(models, model), bool(ns))
    return found


SCALARS = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,),
           "datetime": (str,), "date": (str,)}


def check(value, typ, where):
    if typ == "object":
        return
    if typ in SCALARS:
        ok = SCALARS[typ]
        if not isinstance(value, ok) or (typ in ("int", "float") and isinstance(value, bool)):
            problem(where, f"{json.dumps(value)} is not of type {typ}")
        return
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            problem(where, f"not a list (of {m.group(1)})")
            return
        for i, item in enumerate(value):
            check(item, m.group(1), f"{where}[{i}]")
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            problem(where, f"not a map (of {m.group(1)})")
            return
        for k, v in value.items():
            check(v, m.group(1), f"{where}[{k}]")
        return
    cls = getattr(models, typ, None)
    if cls is None:
        problem(where, f"type {typ} is not in the definitions")
        return
    check_model(value, cls, where)


def check_model(value, cls, where):
    if not isinstance(value, dict):
        problem(where, f"not an object ({cls.__name__})")
        return
    by_json = {j: a for a, j in cls.attribute_map.items()}
    for key, v in value.items():
        attr = by_json.get(key)
        if attr is None:
            problem(f"{where}.{key}", f"unknown field of {cls.__name__}")
            continue
        check(v, cls.openapi_types[attr], f"{where}.{key}")
    # The generated setters refuse a required field left out and a value
    # outside an enumeration or pattern the definitions give.
    try:
        cls(**{by_json[k]: v for k, v in value.items() if k in by_json})
    except (ValueError, TypeError) as e:
        problem(where, f"{cls.__name__}: {e}")


def main(paths):
    known = kinds()
    count = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # kubectl prints one object after another, or a List.
        items, at, dec = [], 0, json.JSONDecoder()
        while text[at:].strip():
            doc, end = dec.raw_decode(text, at + len(text[at:]) - len(text[at:].lstrip()))
            items += doc["items"] if doc.get("kind") == "List" and "items" in doc else [doc]
            at = end
        for obj in items:
            count += 1
            name = f"{path}: {obj.get('kind')}/{obj.get('metadata', {}).get('name')}"
            entry = known.get((obj.get("apiVersion"), obj.get("kind")))
            if entry is None:
                problem(name, f"the API creates no kind {obj.get('kind')} at apiVersion {obj.get('apiVersion')}")
                continue
            cls, namespaced = entry
            if not namespaced and "namespace" in obj.get("metadata", {}):
                problem(name, "a namespace given to a kind that has none")
            check_model(obj, cls, name)
    for p in problems:
        print(p)
    if count == 0:
        print("no object checked")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
