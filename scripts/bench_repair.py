"""Issue 42's goals, measured in one run and paired run by run (a benchmark, not a test):

    python3 scripts/bench_repair.py [--mentions-only] <hyalo binary or "-"> <damage corpus or "-"> <vault folder>...

Speed, on each vault: `vaultlink fix <vault> --dry-run --json` (fix_broken_links' dry run over the
whole vault, the CLI as one process with no persistent index) beside `hyalo links fix` (its dry
run is the default), RUNS rounds of both, one when a round takes over 60 s; the ratio is the
median of the rounds' ratios. `link_mentions` beside `hyalo links auto` has its row when the
`vaultlink` built has a `mentions` command (without it the row says so), on both of its paths: a
vault never seen (an empty cache folder, as `fix` is run) and a vault seen before (the persistent
index a first run left in the cache folder). With `--mentions-only` only the `link_mentions`
rows are run, so that they get their rounds where `fix` (or hyalo's) takes minutes a round, as
at 100,000 notes.

Quality, on a copy of the damage corpus (`tests/damage.py`, seed 42, the answer key it keeps):
vaultlink's repairs at its default floor, read from the dry run's plan, and `hyalo links fix
--apply` on a second copy, read back from the notes it rewrote. A damaged link is restored when
the link on its line now names the note (and heading) the key says it meant; repaired to another
note when it names another; left when it is as damaged. Precision is restored over repaired,
recall restored over damaged.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_first_answer import RUNS, VAULTLINK, median, ms, paired, record, times, whole  # noqa: E402

WIKILINK = re.compile(r"\[\[([^\]|#\n]*)(#[^\]|\n]*)?(\|[^\]\n]*)?\]\]")
MARKDOWN = re.compile(r"\]\(([^)\s#]*)(#[^)\s]*)?\)")


def has_mentions():
    """Whether this vaultlink has a `mentions` command (issue 42's `link_mentions` on the CLI)."""
    done = subprocess.run([str(VAULTLINK), "mentions", "--help"], capture_output=True, text=True)
    return done.returncode == 0


def speed(hyalo, vault, env, work, mentions_only=False):
    """The rounds on one vault; vaultlink starts each run on a vault never seen (an empty cache
    folder), as hyalo without its snapshot does."""
    cache = work / "cache"

    def fresh():
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir()
        return {**env, "VAULTLINK_CACHE_DIR": str(cache)}

    contenders = {}
    if not mentions_only:
        contenders["fix"] = lambda: whole([str(VAULTLINK), "fix", str(vault), "--dry-run", "--json", "--mode", "standalone"], fresh())
    if hyalo is not None and not mentions_only:
        contenders["hyalo_fix"] = lambda: whole([str(hyalo), "--dir", str(vault), "links", "fix", "--format", "json", "--no-hints"])
    if has_mentions():
        mentions = [str(VAULTLINK), "mentions", str(vault), "--dry-run", "--json", "--mode", "standalone"]
        contenders["mentions"] = lambda: whole(mentions, fresh())
        # The other path: the vault seen before, its persistent index kept in a cache folder
        # that one run outside the rounds filled.
        kept = {**env, "VAULTLINK_CACHE_DIR": str(work / f"kept-{vault.name}")}
        (work / f"kept-{vault.name}").mkdir(exist_ok=True)
        whole(mentions, kept)
        contenders["mentions_kept"] = lambda: whole(mentions, kept)
        if hyalo is not None:
            contenders["hyalo_auto"] = lambda: whole([str(hyalo), "--dir", str(vault), "links", "auto", "--format", "json", "--no-hints"])
    runs = {name: [] for name in contenders}
    for _ in range(RUNS):
        started = time.perf_counter()
        for name, run in contenders.items():
            runs[name].append(run())
        if time.perf_counter() - started > 60:
            break
    return runs


def figure(runs, name, field="wall"):
    if name not in runs:
        return None
    return median([getattr(run, field) for run in runs[name] if run.ok])


def target_of(link):
    """The note path a link on a line names, without `.md`, and its heading."""
    wiki = WIKILINK.fullmatch(link)
    if wiki:
        return wiki.group(1).strip(), (wiki.group(2) or "")[1:] or None
    markdown = MARKDOWN.search(link)
    if markdown:
        path = markdown.group(1).replace("%20", " ")
        return path[:-3] if path.endswith(".md") else path, (markdown.group(2) or "")[1:].replace("%20", " ") or None
    return None, None


def names(target, meant):
    """Whether a link's target names the note at `meant` (a vault path), as a path or a file name."""
    stem = meant[:-3] if meant.endswith(".md") else meant
    return target is not None and target.lower() in (stem.lower(), Path(stem).name.lower())


def score_lines(key, before, after):
    """Each damaged link scored by its line before and after a tool rewrote the vault."""
    right = wrong = left = 0
    for damaged in key:
        old = before[damaged.note].splitlines()[damaged.line - 1]
        lines = after[damaged.note].splitlines()
        new = lines[damaged.line - 1] if damaged.line - 1 < len(lines) else ""
        if damaged.link in new:
            left += 1
            continue
        old_links = [match.group(0) for pattern in (WIKILINK, MARKDOWN) for match in pattern.finditer(old)]
        changed = [match.group(0) for pattern in (WIKILINK, MARKDOWN) for match in pattern.finditer(new) if match.group(0) not in old_links]
        target, heading = target_of(changed[0]) if changed else (None, None)
        meant = names(target, damaged.meant) and (damaged.heading is None or (heading or "").lower() == damaged.heading.lower())
        right, wrong = (right + 1, wrong) if meant else (right, wrong + 1)
    return right, wrong, left


def quality(hyalo, corpus, work, env):
    from damage import damage

    rows = []
    vault = work / "damaged-vaultlink"
    shutil.copytree(corpus, vault, ignore=shutil.ignore_patterns(".git"))
    key = damage(vault, seed=42).key
    plan = json.loads(subprocess.run([str(VAULTLINK), "fix", str(vault), "--dry-run", "--json", "--mode", "standalone"],
                                     capture_output=True, text=True, env=env).stdout)
    by_link = {}
    for repair in plan.get("repairs", []):
        by_link.setdefault((repair["note"], repair["line"], repair["before"]), []).append(repair)
    right = wrong = left = 0
    for damaged in key:
        found = by_link.get((damaged.note, damaged.line, damaged.link))
        if not found:
            left += 1
            continue
        repair = found[0]
        meant = repair["target"] == damaged.meant and (damaged.heading is None or repair["after"].endswith(f"#{damaged.heading}]]"))
        right, wrong = (right + 1, wrong) if meant else (right, wrong + 1)
    rows.append(("vaultlink `fix_broken_links` (floor 90 %)", len(key), right, wrong, left))
    # hyalo writes only its confident fixes with `--apply`; its fuzzy and basename guesses need
    # `--apply-fuzzy` too, so both are scored.
    for flags in (["--apply"], ["--apply", "--apply-fuzzy"]) if hyalo is not None else ():
        copy = work / f"damaged-hyalo{len(flags)}"
        shutil.copytree(corpus, copy, ignore=shutil.ignore_patterns(".git"))
        assert damage(copy, seed=42).key == key, "the damage is the seed's"
        before = {damaged.note: (copy / damaged.note).read_text() for damaged in key}
        subprocess.run([str(hyalo), "--dir", str(copy), "links", "fix", *flags, "--no-hints"], capture_output=True)
        after = {damaged.note: (copy / damaged.note).read_text() for damaged in key}
        rows.append((f"hyalo `links fix {' '.join(flags)}` (its default threshold)", len(key), *score_lines(key, before, after)))
    return rows


def main():
    arguments = sys.argv[1:]
    mentions_only = "--mentions-only" in arguments
    arguments = [argument for argument in arguments if argument != "--mentions-only"]
    if len(arguments) < 2:
        raise SystemExit(__doc__)
    hyalo = None if arguments[0] == "-" else Path(arguments[0])
    corpus = None if arguments[1] == "-" else Path(arguments[1])
    folders = [Path(folder).resolve() for folder in arguments[2:]]
    mentions = has_mentions()
    with tempfile.TemporaryDirectory(prefix="vlb-repair-") as temporary:
        work = Path(temporary)
        (work / "runtime").mkdir(mode=0o700)
        (work / "quality-cache").mkdir()
        env = {**os.environ, "VAULTLINK_RUNTIME_DIR": str(work / "runtime"), "VAULTLINK_CACHE_DIR": str(work / "quality-cache")}
        results = []
        for folder in folders:
            results.append((folder.name, speed(hyalo, folder, env, work, mentions_only)))
            rounds = max(len(runs) for runs in results[-1][1].values())
            print(f"bench: {folder.name} measured ({rounds} rounds)", file=sys.stderr, flush=True)
        quality_rows = quality(hyalo, corpus, work, env) if corpus is not None and corpus.is_dir() else []
    print("Whole processes in rounds, medians; a ratio is the median of the rounds' ratios (goal: hyalo's time ≥ 3 × vaultlink's).")
    print()
    print("| vault | `fix_broken_links` dry run (CPU) | hyalo `links fix` (dry run; CPU) | hyalo / vaultlink | peak memory, vaultlink / hyalo | "
          "`link_mentions` dry run (CPU) | hyalo `links auto` (dry run; CPU) | hyalo / vaultlink | `link_mentions`, index kept (CPU) | hyalo / vaultlink |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, runs in results:
        fix, hyalo_fix = figure(runs, "fix"), figure(runs, "hyalo_fix")
        ratio = paired(runs, "hyalo_fix", "fix") if "hyalo_fix" in runs else None
        record(name, "fix_dry_run_ms", fix)
        record(name, "hyalo_links_fix_ms", hyalo_fix)
        record(name, "hyalo_links_fix_over_fix", ratio)
        peaks = ("—" if fix is None else f"{figure(runs, 'fix', 'rss'):,.0f} MB") + " / " + ("—" if hyalo_fix is None else f"{figure(runs, 'hyalo_fix', 'rss'):,.0f} MB")
        if mentions:
            mention, auto = figure(runs, "mentions"), figure(runs, "hyalo_auto")
            auto_ratio = paired(runs, "hyalo_auto", "mentions") if "hyalo_auto" in runs else None
            record(name, "mentions_dry_run_ms", mention)
            record(name, "hyalo_links_auto_over_mentions", auto_ratio)
            kept, kept_ratio = figure(runs, "mentions_kept"), paired(runs, "hyalo_auto", "mentions_kept") if "hyalo_auto" in runs else None
            record(name, "mentions_kept_dry_run_ms", kept)
            record(name, "hyalo_links_auto_over_mentions_kept", kept_ratio)
            cpu_of = {name: figure(runs, name, "cpu") for name in ("mentions", "hyalo_auto", "mentions_kept")}
            tail = (f"{ms(mention)} ({ms(cpu_of['mentions'])}) | {ms(auto)} ({ms(cpu_of['hyalo_auto'])}) | {times(auto_ratio)} | "
                    f"{ms(kept)} ({ms(cpu_of['mentions_kept'])}) | {times(kept_ratio)}")
        else:
            tail = "not measured: this `vaultlink` has no `mentions` command | — | — | — | —"
        cpu = f"{ms(fix)} ({ms(figure(runs, 'fix', 'cpu'))})" if fix is not None else "—"
        hyalo_cpu = f"{ms(hyalo_fix)} ({ms(figure(runs, 'hyalo_fix', 'cpu'))})" if hyalo_fix is not None else "—"
        print(f"| {name} | {cpu} | {hyalo_cpu} | {times(ratio)} | {peaks} | {tail} |")
    if quality_rows:
        print()
        print(f"Quality on `{corpus.name}` damaged by `tests/damage.py` (seed 42): links restored to the note (and heading) meant.")
        print()
        print("| tool | damaged links | restored to the note meant | repaired to another note | left | precision | recall |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for tool, damaged, right, wrong, left in quality_rows:
            precision = right / (right + wrong) if right + wrong else None
            recall = right / damaged if damaged else None
            record(corpus.name, f"repair_precision {tool}", precision)
            record(corpus.name, f"repair_recall {tool}", recall)
            print(f"| {tool} | {damaged} | {right} | {wrong} | {left} | "
                  f"{'—' if precision is None else f'{precision:.2f}'} | {'—' if recall is None else f'{recall:.2f}'} |")


if __name__ == "__main__":
    main()
