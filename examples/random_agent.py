#!/usr/bin/env python3
"""A GTP agent for `konane match` over the project's Python module (docs/python.md): a random
legal move. `konane match 'python3 examples/random_agent.py' 'konane engine -q' --board 6x6`."""
import random
import sys

import konane

board, moves = "8x8", []
for line in sys.stdin:
    if not line.split():
        continue
    cmd, *args = line.split()
    answer = ""
    if cmd == "boardsize":  # GTP's `boardsize N`, or `RxC`
        board, moves = (args[0] if "x" in args[0] else f"{args[0]}x{args[0]}"), []
    elif cmd == "clear_board":
        moves = []
    elif cmd == "play":
        moves.append(args[1].lower())
    elif cmd == "genmove":
        p = konane.Position.start(board)
        legal = (p.play(" ".join(moves)) if moves else p).moves()
        answer = random.choice(legal) if legal else "resign"
        moves += [answer] if legal else []
    elif cmd in ("protocol_version", "name"):
        answer = {"protocol_version": "2", "name": "random-python"}[cmd]
    print(f"= {answer}\n", flush=True)
    if cmd == "quit":
        break
