"""Cost of probing a table from Python, and what releasing the GIL buys with threads.

    PYTHONPATH=build/python python3 python/bench_probe.py [TABLE] [--positions N] [--runs R]

TABLE defaults to a 5x5 table generated into a temporary folder. Prints, as medians of R runs
over the same N positions (taken at random plies of random games, seed 1, table warm):
microseconds of CPU time per value(), best_move() and moves() call (CPU time, so that a busy
machine does not inflate them); the wall and CPU time of perfect_line() on every position, and
of perft(12) from the 5x5 full board four times, with 1 thread and with 2 threads (same total
work: what releasing the GIL buys), with the load average; and how many loop iterations the
main thread makes while another thread is inside perft(12), against a call that holds the GIL
(sum(range(20_000_000))).
"""
import argparse
import concurrent.futures
import os
import random
import statistics
import tempfile
import threading
import time

import konane


def sample(tb, count, seed):
    """Positions at random plies of random games from the table's full board."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = [tb.start]
        while not game[-1].game_over:
            game.append(game[-1].play(rng.choice(game[-1].moves())))
        out.append(rng.choice(game))
    return out


def per_call_us(fn, positions, runs):
    """Median over `runs` of the mean CPU microseconds per call of fn over `positions`."""
    times = []
    for _ in range(runs):
        t = time.process_time()
        for p in positions:
            fn(p)
        times.append((time.process_time() - t) / len(positions) * 1e6)
    return statistics.median(times)


def threaded_s(fn, items, threads, runs):
    """Median (wall, CPU) seconds of fn(item) for every item, the items split over `threads`
    threads (CPU: of the whole process)."""
    chunks = [items[i::threads] for i in range(threads)]
    walls, cpus = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        for _ in range(runs):
            t, c = time.perf_counter(), time.process_time()
            list(pool.map(lambda chunk: [fn(x) for x in chunk], chunks))
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def main_thread_iterations(fn):
    """(iterations, seconds): loop iterations the main thread makes while another thread is
    inside fn(), and how long fn() took."""
    counter = [0]
    finished = threading.Event()
    result = []

    def work():
        while counter[0] == 0:  # until the main thread counts
            time.sleep(0.001)
        before, t = counter[0], time.perf_counter()
        fn()
        result.append((counter[0] - before, time.perf_counter() - t))
        finished.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not finished.is_set():
        counter[0] += 1
    worker.join()
    return result[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table", nargs="?")
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = a.table or konane.generate("5x5", output=os.path.join(tmp, "5x5.kbt")).path
        with konane.Tablebase(path) as tb:
            positions = sample(tb, a.positions, 1)
            for p in positions:  # warm: every block the sample needs is decoded once
                tb.moves(p)
            print(f"table {tb.board} {tb.rules}, {len(positions)} positions, "
                  f"medians of {a.runs} runs, load average {os.getloadavg()[0]:.2f}")
            for name in ("value", "best_move", "moves"):
                print(f"  {name + '()':12} {per_call_us(getattr(tb, name), positions, a.runs):7.2f} "
                      f"us of CPU per call")
            start = konane.Position.start("5x5")
            for name, fn, items in (
                ("perfect_line() on every position", tb.perfect_line, positions),
                ("perft(12) from the full board x 4", lambda p: p.perft(12), [start] * 4),
            ):
                (w1, c1), (w2, c2) = (threaded_s(fn, items, n, a.runs) for n in (1, 2))
                print(f"  {name}: 1 thread {w1:.3f} s wall ({c1:.3f} s CPU), 2 threads "
                      f"{w2:.3f} s wall ({c2:.3f} s CPU), speed-up {w1 / w2:.2f}x, load "
                      f"average {os.getloadavg()[0]:.2f}")
            n, secs = main_thread_iterations(lambda: start.perft(12))
            m, msecs = main_thread_iterations(lambda: sum(range(20_000_000)))
            print(f"  main-thread loop iterations while another thread is inside perft(12) "
                  f"({secs:.3f} s): {n}; inside sum(range(20_000_000)) ({msecs:.3f} s, holds "
                  f"the GIL): {m}")


if __name__ == "__main__":
    main()
