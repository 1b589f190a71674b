#!/usr/bin/env python3
"""Writes docs/solved.md (markdown, on stdout) from the JSON that scripts/build-tables saved:
per board the `konane generate --json` summary, `konane openings --json` and `konane info --json`.

Usage: solved_md.py --dir DIR --rules R --commit C BOARD...
"""
import argparse
import json
import os
import platform


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({model}), {mem / 2**30:.0f} GiB, {platform.system()} {platform.release()}"


def size(n):
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n} B"


def duration(s):
    if s >= 60:
        return f"{int(s // 60)} min {s % 60:.0f} s"
    return f"{s:.2f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("boards", nargs="+")
    a = ap.parse_args()

    data = []
    for b in a.boards:
        base = os.path.join(a.dir, f"konane-{b}-{a.rules}")
        with open(base + ".generate.json") as f:
            gen = json.load(f)
        with open(base + ".openings.json") as f:
            op = json.load(f)
        with open(base + ".info.json") as f:
            info = json.load(f)
        data.append((b, gen, op, info))

    out = []
    w = out.append
    w(f"# Solved boards, ruleset `{a.rules}`")
    w("")
    w("Every board below was solved completely by `konane generate` (retrograde analysis of every")
    w("position reachable after the two opening removals) and its openings read from the table by")
    w("`konane openings`. Depths are in plies from Black's first jump, with perfect play: the winner")
    w("hurries, the loser delays ([rules.md](rules.md) \"Values\").")
    w("")
    w(f"Produced by `scripts/build-tables` at commit `{a.commit}` on {machine()}. Each board's time")
    w("and peak memory are those of the run that built its table (`generate --json`); a resumed run")
    w("counts the time of every layer, whichever run did it.")
    w("")
    if a.note:
        w(a.note)
        w("")
    w("| board | winner | Black's best removal | White's best reply | depth | classes | raw positions | file | generation | peak memory |")
    w("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for b, gen, op, info in data:
        best = op.get("best") or {}
        t = gen["seconds"]["total"]
        if gen.get("resumed"):
            t = sum(gen["seconds"][k] for k in ("enumerate", "hash", "solve", "write"))
        w(f"| {b} | {op['winner']} | {best.get('black', '-')} | {best.get('white') or '-'} | "
          f"{best.get('depth', 0)} | {gen['positions']['classes']:,} | {gen['positions']['raw']:,} | "
          f"{size(info['file_bytes'])} | {duration(t)}{' (resumed)' if gen.get('resumed') else ''} | "
          f"{size(gen['peak_memory_bytes'])} |")
    w("")
    for b, gen, op, info in data:
        w(f"## {b}")
        w("")
        best = op.get("best")
        if best:
            reply = f", White's best reply {best['white']}" if best.get("white") else ""
            w(f"**{op['winner'].capitalize()} wins** with perfect play. Black's best removal: "
              f"{best['black']}{reply}; the game then lasts {best['depth']} plies.")
        else:
            w(f"**{op['winner'].capitalize()} wins**: Black has no removal.")
        w("")
        w("White's best reply to each removal:")
        w("")
        for c in op["best_replies"]:
            if c.get("white"):
                w(f"- {c['black']} → {c['white']}: {c['winner']} wins in {c['depth']}")
            else:
                w(f"- {c['black']}: White has no reply and loses")
        w("")
        w("| Black removes | White removes | winner | depth |")
        w("|---|---|---|---:|")
        for o in op["openings"]:
            w(f"| {o['black']} | {o['white']} | {o['winner']} | {o['depth']} |")
        w("")
        s = gen["seconds"]
        w(f"Table: {size(info['file_bytes'])} ({info['bits_per_position']['total']:.2f} bits per "
          f"position). Generation: enumerate {duration(s['enumerate'])}, hash {duration(s['hash'])}, "
          f"solve {duration(s['solve'])}, write {duration(s['write'])}, {gen['threads']} threads, "
          f"peak memory {size(gen['peak_memory_bytes'])}"
          + (f", budget {size(gen['memory_budget_bytes'])}" if "memory_budget_bytes" in gen else "")
          + (f", work directory at most {size(gen['peak_work_bytes'])}" if "peak_work_bytes" in gen else "")
          + ".")
        w("")
        w("| pieces | classes | raw positions | longest game (plies) |")
        w("|---:|---:|---:|---:|")
        for l in sorted(gen["layers"], key=lambda l: -l["pieces"]):
            w(f"| {l['pieces']} | {l['classes']:,} | {l['raw']:,} | {l['max_depth']} |")
        w("")
    w("Boards past the tables (6x7, 7x6), by proof search: [beyond.md](beyond.md).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
