"""A damage generator for a copy of a vault: from a seed, it breaks links the ways vaults break
outside vaultlink, and keeps the answer key, the note each broken link meant.

The kinds of damage:
- `typo`: a link's target misspelt (two letters swapped, or one dropped), in the linking note;
- `renamed`: a note renamed outside Obsidian (spaces become hyphens, or the name gains a
  suffix), every link to it left with the old name;
- `moved`: a link written with the folder its note was in before it moved (`[[Old/Name]]`);
- `heading`: a heading renamed in its note (a word added), a link to it left with the old text.

Every damaged link is keyed by its note, line and text as damaged, to the path of the note (and
the heading) it meant. The generator only writes files; it knows nothing of vaultlink."""

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

WIKILINK = re.compile(r"\[\[([^\]|#^\n]+)(#[^\]|^\n]*)?(\|[^\]\n]*)?\]\]")
HEADING = re.compile(r"^(#{2,6}) +([A-Za-z][A-Za-z ]{3,40})$", re.MULTILINE)


@dataclass
class Damage:
    kind: str
    note: str
    line: int
    link: str
    meant: str
    heading: str | None = None


@dataclass
class Damaged:
    seed: int
    key: list[Damage] = field(default_factory=list)


def notes(vault):
    return sorted(path for path in vault.rglob("*.md") if ".obsidian" not in path.parts and ".vaultlink" not in path.parts)


def plain(name):
    """A name a link can hold and a rename may change: letters and spaces only."""
    return re.fullmatch(r"[A-Za-z][A-Za-z ]{5,40}", name) is not None


def line_of(text, at):
    return text.count("\n", 0, at) + 1


def damage(vault, seed, per_kind=10):
    """Damages `vault` in place: up to `per_kind` of each kind, each link damaged once."""
    chance = random.Random(seed)
    result = Damaged(seed)
    paths = notes(vault)
    by_stem = {}
    for path in paths:
        by_stem.setdefault(path.stem.lower(), []).append(path)
    unique = {stem: found[0] for stem, found in by_stem.items() if len(found) == 1}
    texts = {path: path.read_text() for path in paths}
    touched_notes = set()
    targets_used = set()

    def links_to(target):
        """Every bare wikilink of the vault naming `target`'s stem: (note, match)."""
        found = []
        for path, text in texts.items():
            for match in WIKILINK.finditer(text):
                if match.group(1).strip().lower() == target.stem.lower() and match.group(2) is None:
                    found.append((path, match))
        return found

    linked = sorted({stem for text in texts.values() for match in WIKILINK.finditer(text)
                     if (stem := match.group(1).strip().lower()) in unique and plain(match.group(1).strip())})
    chance.shuffle(linked)

    # Renamed and moved notes first: they change every link to them, which typos must not touch.
    renamed = 0
    for stem in list(linked):
        if renamed >= per_kind:
            break
        target = unique[stem]
        found = [(path, match) for path, match in links_to(target) if path != target]
        if not found or " " not in target.stem:
            continue
        new_name = target.stem.replace(" ", "-") if renamed % 2 == 0 else f"{target.stem} (SRD)"
        new_path = target.with_name(f"{new_name}.md")
        if new_path.exists():
            continue
        target.rename(new_path)
        texts[new_path] = texts.pop(target)
        linked.remove(stem)
        targets_used.add(stem)
        for path, match in found:
            text = texts[path]
            result.key.append(Damage("renamed", str(path.relative_to(vault)), line_of(text, match.start()), match.group(0),
                                     str(new_path.relative_to(vault))))
            touched_notes.add(path)
        renamed += 1

    def damage_one_link(kind, rewrite):
        done = 0
        for stem in list(linked):
            if done >= per_kind:
                break
            target = unique[stem]
            found = [(path, match) for path, match in links_to(target) if path != target]
            if not found:
                continue
            path, match = found[chance.randrange(len(found))]
            name = match.group(1)
            broken = rewrite(name, target)
            if broken is None or broken.lower() in by_stem:
                continue
            text = texts[path]
            new_link = "[[" + broken + (match.group(3) or "") + "]]"
            texts[path] = text[:match.start()] + new_link + text[match.end():]
            path.write_text(texts[path])
            result.key.append(Damage(kind, str(path.relative_to(vault)), line_of(text, match.start()), new_link,
                                     str(target.relative_to(vault))))
            touched_notes.add(path)
            linked.remove(stem)
            done += 1

    def typo(name, _):
        at = chance.randrange(1, len(name) - 2)
        if name[at] == " " or name[at + 1] == " " or name[at] == name[at + 1]:
            return None
        if chance.random() < 0.5:
            return name[:at] + name[at + 1] + name[at] + name[at + 2:]
        return name[:at] + name[at + 1:]

    def moved(name, target):
        folder = target.parent.relative_to(vault)
        return f"Archive/{folder}/{name}" if str(folder) != "." else f"Archive/{name}"

    damage_one_link("typo", typo)
    damage_one_link("moved", moved)

    # Headings: a link made to a heading of a note, then the heading renamed there.
    done = 0
    for path in paths:
        if done >= per_kind or path not in texts or not plain(path.stem):
            continue
        text = texts[path]
        headings = [match for match in HEADING.finditer(text) if plain(match.group(2).strip())]
        if len(headings) < 2:
            continue
        heading = headings[1]
        old = heading.group(2).strip()
        new = f"{old} rules"
        # A linking note of the target, else any untouched note.
        source = next((note for note in texts if note not in touched_notes and note != path), None)
        if source is None:
            break
        texts[path] = text[:heading.start(2)] + new + text[heading.start(2) + len(heading.group(2)):]
        path.write_text(texts[path])
        link = f"[[{path.stem}#{old}]]"
        source_text = texts[source]
        texts[source] = source_text.rstrip("\n") + f"\n\nSee {link}.\n"
        source.write_text(texts[source])
        result.key.append(Damage("heading", str(source.relative_to(vault)), line_of(texts[source], texts[source].rfind(link)), link,
                                 str(path.relative_to(vault)), new))
        touched_notes.update({source, path})
        done += 1
    return result
