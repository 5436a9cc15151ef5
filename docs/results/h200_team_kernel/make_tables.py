#!/usr/bin/env python3
"""Prints the tables of README.md from first/ and second/ (run: python3 make_tables.py)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with open(os.path.join(HERE, path)) as f:
        return json.load(f)


def ratios(folder):
    out = {}
    for r in load(f"{folder}/kb_teams_nb1.json")["results"]:
        out[(r["precision"], r["channel"], r["batch"], r["kernel"] == "teams")] = (r["kernel"], r["ratio"])
    return out


first, second = ratios("first"), ratios("second")
print("| precision | channel | batch | other kernel | its ratio (first, second run) | teams, first | teams, second |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for precision in ("double", "mixed", "float"):
    for channel in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"):
        for batch in (1, 8):
            kernel, a = first[(precision, channel, batch, False)]
            _, b = second[(precision, channel, batch, False)]
            print(f"| {precision} | {channel} | {batch} | {kernel} | {a:.3f}, {b:.3f} | "
                  f"{first[(precision, channel, batch, True)][1]:.3f} | {second[(precision, channel, batch, True)][1]:.3f} |")
print()
print("| run | scalar | channel | teams off: ms, x floor | teams on: ms, x floor |")
print("| --- | --- | --- | --- | --- |")
for folder in ("first", "second"):
    for scalar in ("double", "mixed"):
        for channel in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"):
            cells = []
            for team in ("off", "on"):
                path = f"{folder}/rc_team_{team}_{scalar}_{channel}.json"
                if not os.path.exists(os.path.join(HERE, path)):
                    break
                run = load(path)["runs"][0]
                cells.append(f"{run['seconds_per_measurement'] * 1e3:.3f}, {run['fraction_of_floor']:.3f}")
            if len(cells) == 2:
                print(f"| {folder} | {scalar} | {channel} | {cells[0]} | {cells[1]} |")
