#!/usr/bin/env python3
"""Writes docs/solved.md (markdown, on stdout) from the JSON that scripts/build-tables saved:
per board the `konane generate --json` summary, `konane openings --json`, `konane info --stats
--json` and, where it ran, `konane openings --search --rules any --json` (every gap's winner); and
the sha256 of each table from docs/tables.sha256.

Usage: solved_md.py --dir DIR --rules R --commit C [--sums FILE] BOARD...
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


def proof_list(name, fields):
    """The lines of docs/proofs/NAME (comments and blank lines skipped) with `fields` words each,
    as lists of words; [] when the file cannot be read."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "proofs", name)
    try:
        with open(path) as f:
            return [line.split() for line in f
                    if not line.startswith("#") and len(line.split()) == fields]
    except OSError:
        return []


def past_the_tables(tabled, rules):
    """The boards of docs/proofs/verdicts.txt (certificates: file, board, winner) under `rules`
    that have no table here, as (board, winner), smallest first."""
    out = [(board, winner) for name, board, winner in proof_list("verdicts.txt", 3)
           if name.endswith(f"-{rules}.proof") and board not in tabled]
    return sorted(out, key=lambda bw: board_key(bw[0]))


def refuted_boards():
    """The boards of docs/proofs/refutations.txt (White wins: each Black removal refuted)."""
    return sorted({board for _, board in proof_list("refutations.txt", 2)}, key=board_key)


def size(n):
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n} B"


def duration(s):
    if s >= 60:
        return f"{int(s // 60)} min {s % 60:.0f} s"
    return f"{s:.2f} s"


def board_key(b):
    r, c = (int(x) for x in b.split("x"))
    return r * c, r, c


def histogram(depths):
    """ "0: 12, 1: 40, ..." for every depth with a class."""
    return ", ".join(f"{d}: {n:,}" for d, n in enumerate(depths) if n)


def total_depths(info):
    if "totals" in info:
        return info["totals"]["depths"]
    return None


def gap_name(o):
    return f"{o['black']},{o['white']}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--sums", default="docs/tables.sha256")
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
        anyj = None
        if os.path.exists(base + ".any.json"):
            with open(base + ".any.json") as f:
                anyj = json.load(f)
        data.append((b, gen, op, info, anyj))
    sums = {}
    if os.path.exists(a.sums):
        with open(a.sums) as f:
            for line in f:
                h, name = line.split()
                sums[name] = h

    out = []
    w = out.append
    w(f"# Solved boards, ruleset `{a.rules}`")
    w("")
    w("Every board below was solved completely by `konane generate` (retrograde analysis of every")
    w("position reachable after the two opening removals) and its openings read from the table by")
    w("`konane openings`. Depths are in plies from Black's first jump, with perfect play: the winner")
    w("hurries, the loser delays ([rules.md](rules.md) \"Values\").")
    w("")
    w("Contents: [results at a glance](#results-at-a-glance) · [checking a table](#checking-a-table) ·")
    w("[every board](#every-board) · then one section per board (openings, every gap, per-layer wins,")
    w("losses and depth histogram, sha256).")
    w("")
    w("## Results at a glance")
    w("")
    black_boards = [b for b, gen, op, info, anyj in data if op["winner"] == "black"]
    w("- **Who wins.** With perfect play from the two opening removals (ruleset "
      f"`{a.rules}`), White wins every board listed here except "
      + (", ".join(black_boards) if black_boards else "none") + ", which "
      + ("Black wins." if len(black_boards) != 1 else "Black wins.")
      + " The table below gives each board's verdict, Black's best removal with White's best reply,")
    w("  and the length of that game in plies from Black's first jump (the winner hurries, the loser")
    w("  delays).")
    any_black = [b for b, gen, op, info, anyj in data if anyj and anyj["winner"] == "black"]
    any_done = [b for b, gen, op, info, anyj in data if anyj]
    if any_done:
        w(f"- **Any removal** (ruleset `any`: Black may remove any of its pieces, White any piece next")
        w(f"  to it; proof search, win/loss only; boards of up to {max(board_key(b)[0] for b in any_done)} squares):"
          " Black wins the `any` game (it has a removal after which every White reply loses) on "
          + (", ".join(any_black) if any_black else "none of them")
          + "; White wins it on every other board searched. Each board's section lists the winner")
        w("  of every gap, the game from those two empty squares with Black to move"
          " ([gap.md](gap.md)).")
    longest = max(data, key=lambda d: (d[2].get("best") or {}).get("depth", 0))
    lb = longest[2].get("best") or {}
    w(f"- **Longest perfect game** among the openings' best lines: {longest[0]}, {lb.get('depth', 0)} plies"
      f" ({lb.get('black', '-')} then {lb.get('white') or '-'}).")
    past = past_the_tables({b for b, gen, op, info, anyj in data}, a.rules)
    if past:
        by = {c: [b for b, winner in past if winner == c] for c in ("white", "black")}
        text = "; ".join(f"{c.capitalize()} wins " + ", ".join(by[c]) for c in ("white", "black") if by[c])
        w("- **Past the tables** (proof search with a certificate, win/loss only, every opening;")
        w("  [beyond.md](beyond.md)): " + text + ". The certificates are in `docs/proofs/`, and")
        w("  `konane check-proof` verifies each with the rules alone.")
    refuted = refuted_boards()
    if refuted:
        w("  White also wins " + ", ".join(refuted) + ": each of Black's removals is answered by a")
        w("  White reply proven to win (`docs/proofs/refutations.txt`), not every opening decided.")
    if "7x7" not in [b for b, _ in past]:
        w("  Black wins 7x7 (every opening; its 703 MB certificate, verified by `konane check-proof`, is")
        w("  published by size and sha256 in [beyond.md](beyond.md), too large for the repository).")
    if "6x8" not in [b for b, _ in past]:
        w("  White wins 6x8 and 8x6 (every opening; their 61 MB and 75 MB certificates, verified by")
        w("  `konane check-proof`, are published by size and sha256 in [beyond.md](beyond.md)).")
    w("- **Checking a table**: every published table's sha256 is in `docs/tables.sha256`;")
    w("  `scripts/check-tables DIR` compares the tables in DIR against it (below).")
    w("")
    w("| board | winner | best opening | depth | ruleset `any`: winner (gaps Black wins) |")
    w("|---|---|---|---:|---|")
    for b, gen, op, info, anyj in data:
        best = op.get("best") or {}
        opening = f"{best.get('black', '-')} {best.get('white') or ''}".strip()
        if anyj:
            wins = [o for o in anyj["openings"] if o["winner"] == "black"]
            gaps = f"{anyj['winner']} ({len(wins)} of {len(anyj['openings'])})"
        else:
            gaps = "not searched"
        w(f"| {b} | {op['winner']} | {opening} | {best.get('depth', 0)} | {gaps} |")
    w("")
    w("## Checking a table")
    w("")
    w("Generation is deterministic: the same board and ruleset give the same file byte for byte,")
    w("whatever the thread count or memory budget. `docs/tables.sha256` holds the sha256 of every")
    w("table listed here (in `sha256sum -c` format); a board whose table was not rebuilt by the run")
    w("that wrote this page has no line there yet, and its section says so. To check rebuilt tables:")
    w("")
    w("```")
    w("scripts/build-tables --dir tables          # or: konane generate 5x5 -o tables/konane-5x5-brainking.kbt")
    w("scripts/check-tables tables                # sha256sum -c of every table present in tables/")
    w("```")
    w("")
    w("The test `published sha256` (`tests/solver/test_published_tables.cpp`) builds every table of up to 25")
    w("squares and compares it with `docs/tables.sha256`.")
    w("")
    w("## Every board")
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
    for b, gen, op, info, anyj in data:
        best = op.get("best") or {}
        t = gen["seconds"]["total"]
        if gen.get("resumed"):
            t = sum(gen["seconds"][k] for k in ("enumerate", "hash", "solve", "write"))
        w(f"| {b} | {op['winner']} | {best.get('black', '-')} | {best.get('white') or '-'} | "
          f"{best.get('depth', 0)} | {gen['positions']['classes']:,} | {gen['positions']['raw']:,} | "
          f"{size(info['file_bytes'])} | {duration(t)}{' (resumed)' if gen.get('resumed') else ''} | "
          f"{size(gen['peak_memory_bytes'])} |")
    w("")
    for b, gen, op, info, anyj in data:
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
        name = f"konane-{b}-{a.rules}.kbt"
        if name in sums:
            w(f"sha256 of `{name}`: `{sums[name]}`.")
        else:
            w(f"sha256 of `{name}`: to be filled from the next build of this board (its table was"
              " not rebuilt by the run that wrote this page).")
        w("")
        stats = {l["pieces"]: l for l in info.get("layers", []) if "wins" in l}
        if stats:
            w("Per layer: classes (positions up to symmetry), raw positions, how many classes the side")
            w("to move wins and loses (`konane info --stats`), and the longest game (plies).")
            w("")
            w("| pieces | classes | raw positions | wins | losses | longest game (plies) |")
            w("|---:|---:|---:|---:|---:|---:|")
            for l in sorted(gen["layers"], key=lambda l: -l["pieces"]):
                st = stats[l["pieces"]]
                w(f"| {l['pieces']} | {l['classes']:,} | {l['raw']:,} | {st['wins']:,} | "
                  f"{st['losses']:,} | {l['max_depth']} |")
            tot = info["totals"]
            w(f"| all | {tot['classes']:,} | {gen['positions']['raw']:,} | {tot['wins']:,} | "
              f"{tot['losses']:,} | |")
            w("")
            w(f"Classes per depth to end (plies; odd: the side to move wins): {histogram(tot['depths'])}.")
            w("Per layer: `konane info --stats`.")
        else:
            w("| pieces | classes | raw positions | longest game (plies) |")
            w("|---:|---:|---:|---:|")
            for l in sorted(gen["layers"], key=lambda l: -l["pieces"]):
                w(f"| {l['pieces']} | {l['classes']:,} | {l['raw']:,} | {l['max_depth']} |")
            w("")
            w("Wins, losses and the depth histogram: to be filled from the next build of this board"
              " (`konane info --stats`).")
        w("")
        if anyj:
            bw = [gap_name(o) for o in anyj["openings"] if o["winner"] == "black"]
            ww = [gap_name(o) for o in anyj["openings"] if o["winner"] == "white"]
            w(f"Every gap (ruleset `any`, `konane openings --board {b} --search --rules any`, win/loss"
              f" only, {anyj['cpu_seconds']:.2f} s of CPU): **{anyj['winner']} wins** the `any` game. "
              f"Black wins from {len(bw)} of the {len(anyj['openings'])} gaps"
              + (": " + " ".join(f"`{g}`" for g in bw) if bw else "")
              + "; White from " + (" ".join(f"`{g}`" for g in ww) if ww else "none") + ".")
            w("")
    w("Boards past the tables, by proof search with certificates: [beyond.md](beyond.md).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
