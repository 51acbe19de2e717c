#!/usr/bin/env python3
# check-vm-json.py - the JSON documents thctl printed in the VM, carried
# out on the console between "TH_VM: json NAME begin" and "TH_VM: json
# NAME end": each must parse, and have the documented keys.  The guest
# has no python; the host checks them.  Prints one line per document:
# "ok NAME" or "not ok NAME: why".
# Usage: check-vm-json.py CONSOLE_LOG
import json
import re
import sys

STATS = {"doorbells", "chains_posted", "chains_refused", "chains_fired",
         "chains_done", "chains_failed", "chains_cancelled", "chains_deferred",
         "descs_run", "cqes", "bytes_put", "bytes_got", "bytes_copied",
         "bytes_reduced", "violations", "faults_dropped", "faults_delayed",
         "retries", "timeouts", "rounds_parked"}


def check_stat_nodes(d, nodes):
    assert isinstance(d, list) and len(d) == nodes, f"{len(d)} nodes, want {nodes}"
    for i, n in enumerate(d):
        assert n["node"] == i and isinstance(n["vports"], int)
        assert set(n["stats"]) == STATS, "stats keys"


def check_vport(v):
    for k in ("node", "vport", "pid", "uid", "state", "details"):
        assert k in v, f"no {k}"
    assert v["state"] in ("ok", "error", "dead")
    if v["details"]:
        for k in ("domain", "sq_entries", "cq_entries", "pending", "mrs",
                  "pinned_bytes"):
            assert k in v, f"no {k}"
        assert set(v["stats"]) == STATS


def check(name, d):
    if name == "stat":
        check_stat_nodes(d, 16)
    elif name == "stat-node":
        assert isinstance(d, list) and len(d) == 1 and d[0]["node"] == 0
        assert set(d[0]["stats"]) == STATS
    elif name == "stat-vport":
        check_vport(d)
        assert d["details"], "the owner sees the details"
    elif name == "vports":
        assert isinstance(d, list) and len(d) >= 1
        for v in d:
            check_vport(v)
    elif name == "vports-other":
        assert isinstance(d, list) and len(d) >= 1
        for v in d:
            check_vport(v)
            assert not v["details"], "another user's vport in detail"
    elif name == "counters":
        assert d["node"] == 0 and isinstance(d["counters"], list)
        for c in d["counters"]:
            assert set(c) == {"index", "success", "failure"}
    elif name == "fault":
        assert isinstance(d, list) and len(d) == 1
        f = d[0]
        assert f["node"] == 3 and f["drop_ppm"] == 10000 and f["retries"] == 3
    elif name == "monitor":
        assert isinstance(d, list) and len(d) >= 2
        assert {e["event"] for e in d} >= {"vport-new", "vport-del"}
    elif name == "stat1024":
        check_stat_nodes(d, 1024)
    else:
        raise AssertionError("unknown document")


def main():
    text = open(sys.argv[1], errors="replace").read().replace("\r", "")
    docs = re.findall(r"^TH_VM: json (\S+) begin\n(.*?)^TH_VM: json \1 end$",
                      text, re.M | re.S)
    if not docs:
        print("not ok json: no documents on the console")
        return 1
    bad = 0
    for name, body in docs:
        try:
            check(name, json.loads(body))
            print(f"ok {name}")
        except (ValueError, AssertionError, KeyError, TypeError) as e:
            print(f"not ok {name}: {e}")
            bad = 1
    return bad


sys.exit(main())
