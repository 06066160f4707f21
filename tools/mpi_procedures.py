#!/usr/bin/env python3
"""Print every C procedure of an MPI standard, one name a line, sorted, from the MPI Forum's
machine-readable description (pympistandard's data/apis.json): each C-expressible procedure
that is neither a callback prototype nor a predefined function, and its large-count form
(name_c) where a parameter has a POLY* kind. test/integration/abi_procedures.txt is this
output for MPI-4.1; regenerate it with
    python3 tools/mpi_procedures.py apis.json > test/integration/abi_procedures.txt"""
import json
import sys


def procedures(apis):
    names = set()
    for entry in apis.values():
        attrs = entry["attributes"]
        if not attrs["c_expressible"] or attrs["callback"] or attrs["predefined_function"]:
            continue
        names.add(entry["name"])
        if any(p["kind"].startswith("POLY") for p in entry["parameters"]):
            names.add(entry["name"] + "_c")
    return sorted(names)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: mpi_procedures.py apis.json")
    with open(sys.argv[1]) as f:
        print("\n".join(procedures(json.load(f))))
