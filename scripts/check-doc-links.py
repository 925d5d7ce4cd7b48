#!/usr/bin/env python3
"""Checks every relative link in the repository's Markdown files: [text](path#anchor) must name a file
that exists and, for a .md file, a heading whose GitHub slug is the anchor (or an <a id> / <a name>).
Links in fenced code blocks and links with a scheme (https:, mailto:) are skipped; target/ and hidden
directories are not read. Prints each broken link as file:line and exits 1 if there is one. Needs only
the standard library.

    scripts/check-doc-links.py [root=.]
"""
import os, re, sys, urllib.parse

root = sys.argv[1] if len(sys.argv) > 1 else '.'
FENCE = re.compile(r'^\s*(```|~~~)')
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r'<[^>]+>', '', heading).strip().lower()
    return re.sub(r'[^\w\- ]', '', text).replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        seen, found, fence = {}, set(), False
        text = open(path, encoding='utf-8').read()
        for line in text.split('\n'):
            if FENCE.match(line):
                fence = not fence
                continue
            m = None if fence else re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f'{s}-{n}')  # repeated headings get -1, -2, ...
        found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
        cache[path] = found
    return cache[path]


broken = checked = 0
for folder, dirs, files in os.walk(root):
    dirs[:] = sorted(d for d in dirs if d not in ('target', 'node_modules') and not d.startswith('.'))
    for name in sorted(files):
        if not name.endswith('.md'):
            continue
        path, fence = os.path.join(folder, name), False
        for number, line in enumerate(open(path, encoding='utf-8'), 1):
            if FENCE.match(line):
                fence = not fence
                continue
            if fence:
                continue
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r'^[a-zA-Z][a-zA-Z+.-]*:', target):
                    continue
                checked += 1
                file, _, anchor = target.partition('#')
                full = os.path.normpath(os.path.join(folder, urllib.parse.unquote(file))) if file else path
                where = f'{os.path.relpath(path, root)}:{number}'
                if not os.path.exists(full):
                    broken += 1
                    print(f'{where}: no file {target}')
                elif anchor and full.endswith('.md') and anchor not in anchors(full):
                    broken += 1
                    print(f'{where}: no heading for #{anchor} in {target}')
print(f'{checked} relative links checked, {broken} broken')
sys.exit(1 if broken else 0)
