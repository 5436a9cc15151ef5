#!/usr/bin/env python3
"""Prints the tables of README.md from h100/ and cpu/ and writes pair_groups_summary.json, which README.md
cites (python3 make_tables.py)."""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)


def medians(pattern, team_of):
    """{(precision, channel, batch, team, pair warps, frequency warps): median ms per message over rounds}."""
    samples = {}
    for name, r in tables_lib.results(HERE, pattern):
        key = (r["precision"], r["channel"], r["batch"], team_of(name, r), r["pair_warps"], r["frequency_warps"])
        samples.setdefault(key, []).append(1e3 * r["kernel_seconds"])
    return {k: statistics.median(v) for k, v in samples.items()}


def main():
    summary = {"pairs": [], "teams": [], "ncu": [], "callgrind": []}
    # 1_pairs: pair groups in the committed RangePolicy (blocks of 128 threads), B = 32 and 64.
    pairs = medians("h100/1_pairs/kb_*.json", lambda name, r: 0)
    print("## 1_pairs: ms per message (median of 2 rounds), RangePolicy, by pair warps")
    for (prec, ch, batch, team, pw, fw), ms in sorted(pairs.items()):
        base = pairs[(prec, ch, batch, team, 1, fw)]
        summary["pairs"].append({"precision": prec, "channel": ch, "batch": batch, "pair_warps": pw,
                                 "frequency_warps": fw, "ms": round(ms, 4), "of_one_pair": round(ms / base, 4)})
        print("%-6s %-13s B=%-2d pw=%-2d fw=%d %.3f ms  %.3f of 1 pair" % (prec, ch, batch, pw, fw, ms, ms / base))
    # 2_teams: the experiment binary (team_env_experiment.patch.txt), RINGCOMM_EXPERIMENT_TEAM in the file name.
    teams = medians("h100/2_teams/kb_*.json", lambda name, r: int(re.search(r"_t(\d+)_", name).group(1)))
    print("\n## 2_teams: ms per message (median of 2 rounds), B = 32, by team threads (0: RangePolicy) and pair warps")
    for (prec, ch, batch, team, pw, fw), ms in sorted(teams.items()):
        base = teams[(prec, ch, batch, 0, 1, fw)]
        summary["teams"].append({"precision": prec, "channel": ch, "batch": batch, "team_threads": team,
                                 "pair_warps": pw, "ms": round(ms, 4), "of_committed": round(ms / base, 4)})
        print("%-6s %-13s team=%-4d pw=%d %.3f ms  %.3f of the committed order" % (prec, ch, team, pw, ms, ms / base))
    for name in ("pw1", "pw6"):
        d = tables_lib.ncu_details(os.path.join(HERE, "h100/1_pairs/details_b32_double_ph_magnetic_%s.txt" % name))
        summary["ncu"].append({"profile": name, "duration_ms": d["Duration"], "l1_hit_pct": d["L1/TEX Hit Rate"],
                               "l2_throughput_pct": d["L2 Cache Throughput"], "block_size": d["Block Size"],
                               "occupancy_pct": d["Achieved Occupancy"]})
    print("\n## Nsight Compute, double ph_magnetic exchange pass, B = 32:", summary["ncu"])
    # cpu/callgrind.txt: the committed host code; cpu/callgrind_first_version.txt: the division skipped but
    # the pair groups decoded in every host thread of a batched pass.
    for section, name in (("callgrind", "callgrind.txt"), ("callgrind_first_version", "callgrind_first_version.txt")):
        print("\n## %s (cpu/%s): new/old instructions" % (section, name))
        rows = [line.split() for line in open(os.path.join(HERE, "cpu", name)) if not line.startswith("#")]
        count = {(int(r[0]), r[1], r[2]): int(r[3]) for r in rows}
        summary[section] = []
        for (batch, ch, binary), total in sorted(count.items()):
            if binary != "new":
                continue
            ratio = total / count[(batch, ch, "old")]
            summary[section].append({"batch": batch, "channel": ch, "total_new_over_old": round(ratio, 4)})
            print("B=%d %-13s %.4f" % (batch, ch, ratio))
    with open(os.path.join(HERE, "pair_groups_summary.json"), "w") as out:
        json.dump(summary, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
