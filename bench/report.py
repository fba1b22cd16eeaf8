#!/usr/bin/env python3
"""bench/report.py — turn a bench/run results JSON into Markdown and a PNG chart.

    bench/report.py RESULTS.json [--md OUT.md] [--png OUT.png]

Markdown: a header (machine, date, commit, protocol), one table per family
(µs per peer, tilec throughput, ratio to the best peer with its spread) and a
compile-time table.  Nothing is dropped: a peer that failed, was skipped or
mismatched shows its status in its cell with a numbered note below the table;
a family whose process failed is a row of its own.  Chart: ratio tilec/best
peer for every row, log scale, via gnuplot; rows without a ratio are marked.
Stdlib only, so it runs wherever bench/run does.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

DASH = "—"


def fmt_num(v):
    """Three or more significant digits, without a wall of decimals."""
    if v is None:
        return DASH
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(r):
    return f"{r:.2f}" if r is not None else DASH


def family_docs(doc):
    """Accepts bench/run's merged file or a single driver's JSON."""
    return doc["families"] if "families" in doc else [doc]


def peer_of(row, name):
    for p in row.get("peers", []):
        if p.get("name") == name:
            return p
    return None


def ratio_spread(row):
    """(median, min, max) of tilec/best peer, or None when there is no ratio."""
    best, med = row.get("best_peer"), row.get("ratio_to_best")
    if not best or med is None:
        return None
    for r in row.get("ratios", []):
        if r.get("peer") == best:
            return (med, r.get("min"), r.get("max"))
    return (med, None, None)


def plan_summary(row):
    """The planner's choice from tilec's realization string ("key=value; ..."):
    the plan and the SIMD width, enough to tell two runs' mappings apart."""
    kv = dict(item.strip().split("=", 1) for item in (row.get("tilec_realization") or "").split(";")
              if "=" in item)
    if not kv.get("plan"):
        return DASH
    return kv["plan"] + (f" W{kv['W']}" if kv.get("W") else "")


def row_label(row):
    return f"{row.get('kernel', '?')} {row.get('shape', '?')} t{row.get('threads', '?')}"


class Notes:
    """Numbered notes under a table, one per distinct message (a 'torch not
    importable' skip on every row becomes one note, referenced from each cell)."""

    def __init__(self):
        self.items = []

    def ref(self, text):
        if text not in self.items:
            self.items.append(text)
        return f"[{self.items.index(text) + 1}]"

    def lines(self):
        return [f"- [{i + 1}] {t}" for i, t in enumerate(self.items)]


def peer_cell(p, notes):
    if p is None:
        return DASH
    status = p.get("status", "?")
    if status == "ok":
        return fmt_num(p.get("median_us"))
    text = f"{p.get('name')} {status}"
    if p.get("message"):
        text += f": {p['message']}"
    if status == "mismatch" and p.get("max_abs_err") is not None:
        text += f" (max abs err {p['max_abs_err']:.3g})"
    return f"{status} {notes.ref(text)}"


def family_table(fam):
    name = fam.get("family", "?")
    rows = fam.get("rows", [])
    out = [f"## {name}", ""]
    facts = []
    if fam.get("tilec_width") is not None:
        facts.append(f"tilec SIMD width {fam['tilec_width']}")
    for peer, ver in (fam.get("peer_versions") or {}).items():
        facts.append(f"{peer}: {ver}")
    if fam.get("protocol"):
        facts.append("protocol: " + "; ".join(f"{k}: {v}" for k, v in fam["protocol"].items()))
    tols = sorted({(r["atol"], r["rtol"]) for r in rows if "atol" in r and "rtol" in r})
    if tols:
        facts.append("check tolerance |got − FP64| ≤ atol + rtol·|FP64|: "
                     + ", ".join(f"atol {a:g} rtol {b:g}" for a, b in tols))
    if fam.get("elapsed_s") is not None:
        facts.append(f"family wall time {fam['elapsed_s']:.1f} s")
    out += [f"- {f}" for f in facts] + ([""] if facts else [])

    peers = []  # column order: first appearance; a memory bound ("bound": true) has its own columns
    for r in rows:
        for p in r.get("peers", []):
            if p.get("name") != "tilec" and not p.get("bound") and not p.get("control") and p.get("name") not in peers:
                peers.append(p.get("name"))
    has_tile = any(r.get("tile") for r in rows)
    has_bound = any(p.get("bound") for r in rows for p in r.get("peers", []))
    head = ["kernel", "shape"] + (["tile"] if has_tile else []) + ["threads", "tilec µs"]
    head += [f"{p} µs" for p in peers] + ["tilec throughput", "best peer", "tilec/best [min–max]"]
    head += ["memory bound µs", "tilec/bound"] if has_bound else []
    out += ["| " + " | ".join(head) + " |",
            "|" + "|".join("---" if h in ("kernel", "shape", "tile", "best peer") else "---:" for h in head) + "|"]
    notes = Notes()
    ncols = len(head)
    for r in rows:
        t = peer_of(r, "tilec")
        cells = [r.get("kernel", "?"), r.get("shape", "?")]
        if has_tile:
            cells.append(r.get("tile") or DASH)
        cells += [str(r.get("threads", "?")), peer_cell(t, notes)]
        cells += [peer_cell(peer_of(r, p), notes) for p in peers]
        tilec_ok = t is not None and t.get("status") == "ok"
        tp = t.get("throughput") if tilec_ok else None
        cells.append(f"{fmt_num(tp)} {r.get('unit', '')}".strip() if tp is not None else DASH)
        if tp is not None and r.get("work_note"):
            cells[-1] += " " + notes.ref("throughput counts " + r["work_note"])
        spread = ratio_spread(r)
        if spread:
            med, lo, hi = spread
            rng = f" [{fmt_ratio(lo)}–{fmt_ratio(hi)}]" if lo is not None and hi is not None else ""
            cells += [r["best_peer"], f"**{fmt_ratio(med)}**{rng}"]
        else:
            # No ratio: tilec's own cell already says why, unless every peer failed.
            cells += [DASH, DASH if not tilec_ok else f"{DASH} {notes.ref('no peer ran cleanly')}"]
        if has_bound:
            bound = next((p for p in r.get("peers", []) if p.get("bound")), None)
            cells.append(peer_cell(bound, notes))
            cells.append(fmt_ratio(r.get("ratio_to_bound")))
            if bound and r.get("ratio_to_bound") is not None:
                cells[-1] += " " + notes.ref(f"memory bound: {bound.get('name')} moving the row's bytes (a STREAM triad "
                                             "a = b + s·c of the same size, the row's threads, same rounds); "
                                             "tilec/bound = 1 is the roofline")
        out.append("| " + " | ".join(cells) + " |")
    if fam.get("status", "ok") != "ok":
        # The process failed: a row of its own, after any rows it finished.
        text = f"family {name} failed: {fam.get('message', 'no message')}"
        if fam.get("stderr_tail"):
            text += " — last stderr lines: `" + " / ".join(fam["stderr_tail"][-5:]).replace("`", "'") + "`"
        cells = [f"({name} process)", DASH] + [DASH] * (ncols - 3) + [f"error {notes.ref(text)}"]
        out.append("| " + " | ".join(cells) + " |")
    elif not rows:
        out.append("| " + " | ".join(["(no rows)"] + [DASH] * (ncols - 1)) + " |")
    if notes.items:
        out += ["", "Notes:", ""] + notes.lines()
    return out + [""]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summary_table(fams):
    """Per kernel and thread count: the geometric mean over its shapes of
    tilec / best peer and of tilec / each peer (rows where both ran), the
    worst row, and how many rows tilec loses (ratio > 1.05)."""
    out = ["## Summary: geometric means per kernel", "",
           "Geometric mean over the kernel's shapes of the per-row ratio tilec / best peer (and tilec / "
           "each peer, over the rows where that peer ran cleanly). > 1: tilec is slower. "
           "Losses: rows with tilec / best > 1.05.", ""]
    for fam in fams:
        rows = [r for r in fam.get("rows", []) if r.get("ratio_to_best") is not None]
        if not rows:
            continue
        peers = []
        for r in rows:
            for q in r.get("ratios", []):
                q_peer = peer_of(r, q.get("peer")) or {}
                if q.get("peer") not in peers and not q_peer.get("bound") and not q_peer.get("control"):
                    peers.append(q.get("peer"))
        head = ["kernel", "threads", "rows", "tilec/best", "worst row", "losses"] + [f"tilec/{p}" for p in peers]
        out += [f"### {fam.get('family', '?')}", "", "| " + " | ".join(head) + " |",
                "|" + "|".join("---" if h in ("kernel", "worst row") else "---:" for h in head) + "|"]
        keys = []
        for r in rows:
            if (r.get("kernel"), r.get("threads")) not in keys:
                keys.append((r.get("kernel"), r.get("threads")))
        for kernel, threads in keys + [("all", t) for t in sorted({k[1] for k in keys})]:
            sel = [r for r in rows if (kernel == "all" or r.get("kernel") == kernel) and r.get("threads") == threads]
            worst = max(sel, key=lambda r: r["ratio_to_best"])
            cells = [f"**{kernel}**" if kernel == "all" else str(kernel), str(threads), str(len(sel)),
                     f"**{fmt_ratio(geomean([r['ratio_to_best'] for r in sel]))}**",
                     f"{worst.get('shape')} {fmt_ratio(worst['ratio_to_best'])} vs {worst.get('best_peer')}",
                     str(sum(r["ratio_to_best"] > 1.05 for r in sel))]
            for p in peers:
                xs = [q["median"] for r in sel for q in r.get("ratios", []) if q.get("peer") == p
                      and q.get("median") is not None]
                cells.append(fmt_ratio(geomean(xs)) if xs else DASH)
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return out


def controls_table(fams):
    """Per row: the planner's pick against tilec with the canonical and the
    reversed root order (docs/performance.md "Protocol", item 8), as
    tilec / control: < 1 the pick is faster, > 1 the control is."""
    rows = [(fam, r) for fam in fams for r in fam.get("rows", [])
            if any(p.get("control") and p.get("name") in ("tilec-canonical", "tilec-reversed")
                   for p in r.get("peers", []))]
    if not rows:
        return []
    out = ["## Planner controls", "",
           "tilec's pick against the same kernel compiled with the canonical root order (0, 1, …) and the "
           "reversed one, timed in the same rounds. Ratio = pick / control (median of the per-round ratios): "
           "< 1 the pick is faster; > 1.05 marks a mispick. A control over 4× the pick's time in calibration is "
           "not timed. Rows with one root axis have no controls.", "",
           "| family | kernel | shape | threads | tilec plan | pick µs | canonical µs | pick/canonical "
           "| reversed µs | pick/reversed |",
           "|---|---|---|---:|---|---:|---:|---:|---:|---:|"]
    for fam, r in rows:
        cells = [str(fam.get("family", "?")), str(r.get("kernel")), str(r.get("shape")), str(r.get("threads", "?")),
                 plan_summary(r)]
        t = peer_of(r, "tilec") or {}
        cells.append(fmt_num(t.get("median_us")) if t.get("status") == "ok" else str(t.get("status", DASH)))
        for name in ("tilec-canonical", "tilec-reversed"):
            c = peer_of(r, name) or {}
            q = next((x for x in r.get("ratios", []) if x.get("peer") == name), None)
            cells.append(fmt_num(c.get("median_us")) if c.get("status") == "ok" else str(c.get("status", DASH)))
            ratio = q.get("median") if q else None
            if ratio is None and (c.get("message") or "").startswith("not timed"):
                cells.append("< 0.25 (control not timed)")  # over 4x the pick's time in calibration
            else:
                cells.append(DASH if ratio is None else fmt_ratio(ratio) + (" **mispick**" if ratio > 1.05 else ""))
        out.append("| " + " | ".join(cells) + " |")
    return out + [""]


def dynamic_table(fams):
    """Per row: the same kernel compiled once for a range of sizes (its row
    or M or Lk dimension a runtime size, docs/tir.md "Runtime sizes") against
    the static kernel, as dynamic / static (the inverse of the per-round ratio
    tilec / tilec-dynamic): the goal is <= 1.10 per row, median <= 1.03."""
    rows = [(fam, r) for fam in fams for r in fam.get("rows", []) if peer_of(r, "tilec-dynamic")]
    if not rows:
        return []
    out = ["## Runtime sizes", "",
           "Each row's kernel compiled once with its first size a runtime size (rows: R in 1..2^20; gemm: M in "
           "1..2^16; attention: Lk in 1..2^17) and dispatched at the row's size, against the static kernel in the "
           "same rounds. dynamic/static = 1 / median of the per-round ratios static/dynamic; goal <= 1.10 per row, "
           "median <= 1.03.", "",
           "| family | kernel | shape | threads | static µs | dynamic µs | dynamic/static | dynamic plan |",
           "|---|---|---|---:|---:|---:|---:|---|"]
    ratios = []
    for fam, r in rows:
        t, d = peer_of(r, "tilec") or {}, peer_of(r, "tilec-dynamic") or {}
        q = next((x for x in r.get("ratios", []) if x.get("peer") == "tilec-dynamic"), None)
        ratio = 1 / q["median"] if q and q.get("median") else None
        if ratio is not None:
            ratios.append(ratio)
        cells = [str(fam.get("family", "?")), str(r.get("kernel")), str(r.get("shape")), str(r.get("threads", "?")),
                 fmt_num(t.get("median_us")) if t.get("status") == "ok" else str(t.get("status", DASH)),
                 fmt_num(d.get("median_us")) if d.get("status") == "ok" else str(d.get("status", DASH)),
                 DASH if ratio is None else fmt_ratio(ratio) + (" **over 1.10**" if ratio > 1.10 else ""),
                 (d.get("message") or DASH)[:80] if d.get("status") != "ok" else DASH]
        out.append("| " + " | ".join(cells) + " |")
    if ratios:
        xs = sorted(ratios)
        out += ["", f"Rows: {len(xs)}; median dynamic/static {fmt_ratio(xs[len(xs) // 2])}; worst "
                    f"{fmt_ratio(xs[-1])}; over 1.10: {sum(x > 1.10 for x in xs)}."]
    return out + [""]


def sweep_table(fams):
    """The decode sweep (bench_attention): one kernel compiled for Lk in
    1..4096 and dispatched at every Lk, against static kernels compiled per
    size at a few sizes."""
    sweeps = [s for fam in fams for s in fam.get("sweeps", [])]
    if not sweeps:
        return []
    out = ["## Decode sweep", "",
           "Multi-query decode compiled once for Lk in 1..4096 and dispatched at every Lk from 1 to 4096 in turn; "
           "at a few sizes the static kernel compiled for that size against it (µs per dispatch, best of "
           "alternating rounds). A static kernel per size would compile 4096 times.", "",
           "| threads | buckets | compiles | compile ms | sweep ms | Lk | static µs | dynamic µs | dynamic/static "
           "| static compile ms |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sweeps:
        head = [str(s.get("threads", "?")), str(s.get("buckets", DASH)), str(s.get("compiles", DASH)),
                fmt_num(s.get("compile_ms")), fmt_num(s.get("sweep_ms"))]
        if s.get("status") != "ok":
            out.append("| " + " | ".join(head + [str(s.get("status")), (s.get("message") or DASH)[:80]]
                                         + [DASH] * 3) + " |")
            continue
        for i, p in enumerate(s.get("points", [])):
            ok = p.get("static_us") and p.get("dynamic_us")
            cells = (head if i == 0 else [""] * 5) + [
                str(p.get("Lk")), fmt_num(p.get("static_us")) if ok else str(p.get("status", DASH)),
                fmt_num(p.get("dynamic_us")) if ok else (p.get("message") or DASH)[:60],
                fmt_ratio(p["dynamic_us"] / p["static_us"]) if ok else DASH, fmt_num(p.get("static_compile_ms"))]
            out.append("| " + " | ".join(cells) + " |")
    return out + [""]


def compile_table(fams):
    out = ["## Compile time (ms)", "",
           "Per row, since the plan depends on the thread count. tilec plan: the planner's "
           "choice (root order, block, task grain, tasks) and SIMD width. "
           "verify + plan + lower + llvm (IR emission) + jit (LLVM's optimize + codegen) ≈ total. "
           "Peers: the compile time a "
           "compiling peer reports for the row (its setup, outside the timing).", "",
           "| family | kernel | shape | threads | tilec plan | verify | plan | lower | llvm | optimize | codegen | jit "
           "| total | peers |",
           "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for fam in fams:
        for r in fam.get("rows", []):
            key = (fam.get("family"), r.get("kernel"), r.get("shape"))
            c = r.get("compile_ms") or {}
            vals = [fmt_num(c.get(k)) for k in ("verify", "plan", "lower", "llvm", "optimize", "codegen", "jit", "total")]
            t = peer_of(r, "tilec")
            if not c and t and t.get("status") != "ok":
                vals[-1] = f"tilec {t.get('status')}"  # say why the times are missing
            peers = ", ".join(f"{p.get('name')} {fmt_num(p['compile_ms'])}" for p in r.get("peers", [])
                              if p.get("compile_ms"))
            out.append("| " + " | ".join([str(key[0]), str(key[1]), str(key[2]),
                                           str(r.get("threads", "?")), plan_summary(r)] + vals
                                          + [peers or DASH]) + " |")
    return out + [""]


def markdown(doc, png_name):
    fams = family_docs(doc)
    out = ["# tilec benchmark results", ""]
    machine = doc.get("host", fams[0].get("host", "?") if fams else "?")
    cpu = doc.get("cpu", fams[0].get("cpu") if fams else None)
    if cpu:
        machine += f" — {cpu}"
    if doc.get("cpus"):
        machine += f", {doc['cpus']} CPUs"
    if doc.get("kernel"):
        machine += f", {doc['kernel']}"
    out.append(f"- Machine: {machine}")
    wall = doc.get("wall_s")
    wall = "" if wall is None else f"; total wall time {wall / 60:.1f} min" if wall >= 60 else f"; total wall time {wall:.1f} s"
    out.append(f"- Date: {doc.get('date', '?')}; tilec commit {doc.get('commit', '?')}{wall}")
    if doc.get("args"):
        out.append(f"- Filters: `bench/run {' '.join(doc['args'])}`")
    out += [
        "- Protocol: every output is checked against an FP64 reference before timing; "
        "peers run in interleaved rounds (A B … then … B A, one timed batch per visit, "
        "a peer's round time is the mean of its two visits). "
        "µs = median over rounds of the time per call. Ratio = tilec time / peer time "
        "in the same round; the table shows the **median of the per-round ratios** "
        "against the best peer (lowest median µs) and [min–max] over rounds "
        "(descriptive, not a confidence interval). Ratio > 1: tilec is slower.",
        "- Status cells: `error` (the peer failed), `mismatch` (its output disagreed with the "
        "FP64 reference, so it was not timed), `skipped` (peer unavailable); see the notes.",
        "- Memory bound (rows): a STREAM triad moving the row's bytes in the same rounds; "
        "tilec/bound is tilec's time over it (1 = at the measured bandwidth).",
        ""]
    if png_name:
        out += [f"![tilec / best peer per row]({png_name})", ""]
    out += summary_table(fams)
    for fam in fams:
        out += family_table(fam)
    out += controls_table(fams)
    out += dynamic_table(fams)
    out += sweep_table(fams)
    out += compile_table(fams)
    return "\n".join(out) + "\n"


def gnuplot_terminal():
    """pngcairo when this gnuplot build has it (nicer fonts), else libgd png."""
    try:
        r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = r.stdout + r.stderr
    if "pngcairo" in text:
        return "pngcairo"
    return "png" if " png " in text else None


def gp_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def chart_script(fams, png, term):
    """A gnuplot script: one colored point series per family, error bars for the
    round spread, a dashed line at 1.0, rows without a ratio labelled in red."""
    xtics, series, labels, ys = [], [], [], [1.0]
    x = 0
    for fam in fams:
        pts = []
        rows = fam.get("rows", [])
        for r in rows:
            x += 1
            xtics.append(f"{gp_str(row_label(r))} {x}")
            spread = ratio_spread(r)
            if spread:
                med, lo, hi = spread
                lo = lo if lo is not None else med
                hi = hi if hi is not None else med
                pts.append(f"{x} {med} {lo} {hi}")
                ys += [v for v in (med, lo, hi) if v and v > 0]
            else:
                t = peer_of(r, "tilec")
                st = t.get("status", "?") if t else "missing"
                labels.append((x, f"tilec {st}" if st != "ok" else "no peer"))
        if fam.get("status", "ok") != "ok":
            x += 1
            xtics.append(f"{gp_str(fam.get('family', '?') + ' process')} {x}")
            labels.append((x, "family error"))
        series.append((fam.get("family", "?"), pts))
        x += 1  # a gap between families
    ymin, ymax = min(ys) / 1.5, max(ys) * 1.5
    # Readable log-scale ticks: gnuplot's defaults give only powers of ten.
    steps = [m * 10.0 ** e for e in range(-3, 4) for m in (1, 2, 5)] + [0.75, 1.5]
    yt = sorted(v for v in steps if ymin <= v <= ymax)
    width = max(800, 16 * x + 200)
    font = "sans,9" if term == "pngcairo" else "9"
    s = [f"set terminal {term} noenhanced size {width},640 font {gp_str(font)}",
         f"set output {gp_str(png)}",
         "set title 'tilec time / best peer time (median of per-round ratios; bars: min-max over rounds; below 1: tilec faster)'",
         "set logscale y", f"set yrange [{ymin:.4g}:{ymax:.4g}]", f"set xrange [0:{x}]",
         "set ylabel 'ratio tilec / best peer (log)'", "set grid ytics",
         "set ytics (" + ", ".join(f"'{v:g}' {v:g}" for v in yt) + ")",
         "set xtics rotate by 90 right nomirror", "set key above",
         "set xtics (" + ", ".join(xtics) + ")" if xtics else "unset xtics"]
    ymid = (ymin * ymax) ** 0.5  # the middle of the log axis: a label there is never clipped
    for lx, text in labels:
        s.append(f"set label {gp_str(text)} at {lx},{ymid:.4g} center rotate by 90 textcolor 'red'")
    plots = ["1 with lines dashtype 2 linecolor 'black' title 'parity'"]
    for i, (name, pts) in enumerate(series):
        if not pts:
            continue
        s += [f"$d{i} << EOD"] + pts + ["EOD"]
        plots.append(f"$d{i} using 1:2:3:4 with yerrorbars pointtype 7 pointsize 0.8 title {gp_str(name)}")
    s.append("plot " + ", ".join(plots))
    return "\n".join(s) + "\n"


def write_chart(fams, png):
    term = gnuplot_terminal() if shutil.which("gnuplot") else None
    if not term:
        return "gnuplot with a png terminal not found (scripts/install-deps --bench installs gnuplot-nox)"
    tmp = png + ".tmp.png"
    r = subprocess.run(["gnuplot"], input=chart_script(fams, tmp, term), capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(tmp):
        if os.path.exists(tmp):
            os.remove(tmp)
        return f"gnuplot failed: {r.stderr.strip()}"
    os.replace(tmp, png)
    return None


def main(argv):
    p = argparse.ArgumentParser(prog="bench/report.py", description=__doc__.split("\n\n")[0])
    p.add_argument("results")
    p.add_argument("--md", help="Markdown output (default: stdout)")
    p.add_argument("--png", help="chart output (default: none)")
    a = p.parse_args(argv)
    with open(a.results) as f:
        doc = json.load(f)
    png_ref = None
    if a.png:
        same_dir = a.md and os.path.dirname(os.path.abspath(a.md)) == os.path.dirname(os.path.abspath(a.png))
        png_ref = os.path.basename(a.png) if same_dir else os.path.abspath(a.png)
    text = markdown(doc, png_ref)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
        print(f"report: wrote {a.md}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if a.png:
        err = write_chart(family_docs(doc), a.png)
        if err:
            # A stale chart would contradict the new table: remove it.
            if os.path.exists(a.png):
                os.remove(a.png)
            print(f"report: no chart: {err}", file=sys.stderr)
            return 1
        print(f"report: wrote {a.png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
