"""Issue 42's goals, measured in one run and paired run by run (a benchmark, not a test):

    python3 scripts/bench_repair.py [--mentions-only] <hyalo binary or "-"> <damage corpus or "-"> <vault folder>...

Speed, on each vault: `vaultlink fix <vault> --dry-run --json` (fix_broken_links' dry run over the
whole vault, the CLI as one process with no persistent index) beside `hyalo links fix` (its dry
run is the default), in rounds as `bench_first_answer.py` makes them (up to RUNS, LARGE_RUNS
from LARGE_NOTES notes on, no new round after BUDGET seconds on a vault); the ratio is the
median of the rounds' ratios. hyalo's `links fix` and `links auto` are not run from
HYALO_MAX_NOTES notes on: at 100,000 notes `links fix` had not finished after 25 minutes, and
`links auto` took 7.7 minutes and 13 GB of memory (both 2026-12-05, on this 2-core machine with
23 GB shared by other work), which would hold the whole benchmark and could take the memory other
processes need; the table says so where they were left out. `link_mentions` beside `hyalo links auto` has its row when the
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_first_answer import (  # noqa: E402
    LARGE_NOTES, LARGE_RUNS, RUNS, VAULTLINK, in_rounds, median, ms, note_count, paired, record, rounds_for, times, whole,
)

BUDGET = 150
HYALO_MAX_NOTES = 50_000

WIKILINK = re.compile(r"\[\[([^\]|#\n]*)(#[^\]|\n]*)?(\|[^\]\n]*)?\]\]")
MARKDOWN = re.compile(r"\]\(([^)\s#]*)(#[^)\s]*)?\)")


def has_mentions():
    """Whether this vaultlink has a `mentions` command (issue 42's `link_mentions` on the CLI)."""
    done = subprocess.run([str(VAULTLINK), "mentions", "--help"], capture_output=True, text=True)
    return done.returncode == 0


def speed(hyalo, vault, env, work, notes, mentions_only=False):
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
    if hyalo is not None and notes < HYALO_MAX_NOTES and not mentions_only:
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
        if hyalo is not None and notes < HYALO_MAX_NOTES:
            contenders["hyalo_auto"] = lambda: whole([str(hyalo), "--dir", str(vault), "links", "auto", "--format", "json", "--no-hints"])
    return in_rounds(contenders, rounds_for(notes), BUDGET)


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
    rows.append(("vaultlink `fix_broken_links` (floor 90 %)", "vaultlink", len(key), right, wrong, left))
    # hyalo writes only its confident fixes with `--apply`; its fuzzy and basename guesses need
    # `--apply-fuzzy` too, so both are scored.
    for flags in (["--apply"], ["--apply", "--apply-fuzzy"]) if hyalo is not None else ():
        copy = work / f"damaged-hyalo{len(flags)}"
        shutil.copytree(corpus, copy, ignore=shutil.ignore_patterns(".git"))
        assert damage(copy, seed=42).key == key, "the damage is the seed's"
        before = {damaged.note: (copy / damaged.note).read_text() for damaged in key}
        subprocess.run([str(hyalo), "--dir", str(copy), "links", "fix", *flags, "--no-hints"], capture_output=True)
        after = {damaged.note: (copy / damaged.note).read_text() for damaged in key}
        slug = "_".join(flag.strip("-").replace("-", "_") for flag in flags)
        rows.append((f"hyalo `links fix {' '.join(flags)}` (its default threshold)", f"hyalo_{slug}", len(key), *score_lines(key, before, after)))
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
            notes = note_count(folder)
            results.append((folder.name, notes, speed(hyalo, folder, env, work, notes, mentions_only)))
            rounds = max((len(runs) for runs in results[-1][2].values()), default=0)
            print(f"bench: {folder.name} measured ({rounds} rounds)", file=sys.stderr, flush=True)
        quality_rows = quality(hyalo, corpus, work, env) if corpus is not None and corpus.is_dir() else []
    print(f"Whole processes in rounds (up to {RUNS}, {LARGE_RUNS} from {LARGE_NOTES:,} notes on, no new round after {BUDGET} s on "
          "a vault: the rounds column says how many ran), medians; a ratio is the median of the rounds' ratios (goal: hyalo's "
          f"time ≥ 3 × vaultlink's). hyalo's `links fix` and `links auto` are not run from {HYALO_MAX_NOTES:,} notes on: at "
          "100,000 notes `links fix` had not finished after 25 minutes, and `links auto` took 7.7 minutes of wall clock (65 s "
          "of CPU) and 13 GB of memory, in runs of their own on this machine (2026-12-05).")
    print()
    print("| vault | rounds | `fix_broken_links` dry run (CPU) | hyalo `links fix` (dry run; CPU) | hyalo / vaultlink | peak memory, vaultlink / hyalo | "
          "`link_mentions` dry run (CPU) | hyalo `links auto` (dry run) | hyalo / vaultlink | `link_mentions`, index kept | hyalo / vaultlink |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, notes, runs in results:
        fix, hyalo_fix = figure(runs, "fix"), figure(runs, "hyalo_fix")
        ratio = paired(runs, "hyalo_fix", "fix") if "hyalo_fix" in runs else None
        record(name, "fix_dry_run_ms", fix)
        record(name, "fix_cpu_ms", figure(runs, "fix", "cpu"))
        record(name, "hyalo_links_fix_ms", hyalo_fix)
        record(name, "hyalo_links_fix_over_fix", ratio)
        peaks = ("—" if fix is None else f"{figure(runs, 'fix', 'rss'):,.0f} MB") + " / " + ("—" if hyalo_fix is None else f"{figure(runs, 'hyalo_fix', 'rss'):,.0f} MB")
        if mentions:
            mention, auto = figure(runs, "mentions"), figure(runs, "hyalo_auto")
            auto_ratio = paired(runs, "hyalo_auto", "mentions") if "hyalo_auto" in runs else None
            record(name, "mentions_dry_run_ms", mention)
            record(name, "hyalo_links_auto_ms", auto)
            record(name, "hyalo_links_auto_over_mentions", auto_ratio)
            kept, kept_ratio = figure(runs, "mentions_kept"), paired(runs, "hyalo_auto", "mentions_kept") if "hyalo_auto" in runs else None
            record(name, "mentions_kept_dry_run_ms", kept)
            record(name, "hyalo_links_auto_over_mentions_kept", kept_ratio)
            shown_auto = f"not run ({notes:,} notes)" if hyalo is not None and notes >= HYALO_MAX_NOTES else ms(auto)
            mention_cpu = figure(runs, "mentions", "cpu")
            record(name, "mentions_cpu_ms", mention_cpu)
            tail = f"{ms(mention)} ({ms(mention_cpu)}) | {shown_auto} | {times(auto_ratio)} | {ms(kept)} | {times(kept_ratio)}"
        else:
            tail = "not measured: this `vaultlink` has no `mentions` command | — | — | — | —"
        cpu = f"{ms(fix)} ({ms(figure(runs, 'fix', 'cpu'))})" if fix is not None else "—"
        rounds = max((len(done) for done in runs.values()), default=0)
        if hyalo_fix is not None:
            hyalo_cpu = f"{ms(hyalo_fix)} ({ms(figure(runs, 'hyalo_fix', 'cpu'))})"
        elif hyalo is not None and notes >= HYALO_MAX_NOTES:
            hyalo_cpu = f"not run ({notes:,} notes)"
        elif runs.get("hyalo_fix"):
            hyalo_cpu = "failed or stopped"
        else:
            hyalo_cpu = "—"
        record(name, "repair_rounds", rounds)
        if hyalo is not None and notes >= HYALO_MAX_NOTES:
            record(name, "hyalo_not_run", notes)
        print(f"| {name} | {rounds} | {cpu} | {hyalo_cpu} | {times(ratio)} | {peaks} | {tail} |")
    if quality_rows:
        print()
        print(f"Quality on `{corpus.name}` damaged by `tests/damage.py` (seed 42): links restored to the note (and heading) meant.")
        print()
        print("| tool | damaged links | restored to the note meant | repaired to another note | left | precision | recall |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for tool, slug, damaged, right, wrong, left in quality_rows:
            precision = right / (right + wrong) if right + wrong else None
            recall = right / damaged if damaged else None
            record(corpus.name, f"repair_precision_{slug}", precision)
            record(corpus.name, f"repair_recall_{slug}", recall)
            record(corpus.name, f"repair_wrong_{slug}", wrong)
            record(corpus.name, f"repair_right_{slug}", right)
            print(f"| {tool} | {damaged} | {right} | {wrong} | {left} | "
                  f"{'—' if precision is None else f'{precision:.2f}'} | {'—' if recall is None else f'{recall:.2f}'} |")


if __name__ == "__main__":
    main()
