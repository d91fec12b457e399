#!/usr/bin/env python3
"""cases.py [list|check]: the cases of the escape suite, and their run_code twins.

list   print each case of tests/escape/*.t as "FILE: description", the
       description as written in the source (variables unexpanded): the
       last argument of is, like and unlike, the first of ok and nok.
check  print every case that has neither a row in run_code.tsv nor a
       reason in run_code-exempt.tsv, and every name those two files give
       that is no case (a description changed); nothing when all is well.
"""
import glob, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def statements(path):
    """The file's statements: continued and multi-line quoted ones joined,
    comments and here-documents left out."""
    out, buf, heredoc = [], '', None
    for ln in open(path).read().split('\n'):
        if heredoc:
            if ln.strip() == heredoc:
                heredoc = None
            continue
        if not buf and ln.lstrip().startswith('#'):
            continue
        m = re.search(r"<<-?['\"]?(\w+)['\"]?", ln)
        if m and not buf:
            heredoc = m.group(1)
        buf = buf + '\n' + ln if buf else ln
        if buf.endswith('\\') or open_quote(buf):
            continue
        out.append(buf)
        buf = ''
    return out


def open_quote(s):
    q, esc = None, False
    for c in s:
        if esc:
            esc = False
        elif c == '\\' and q != "'":
            esc = True
        elif q:
            q = None if c == q else q
        elif c in '"\'':
            q = c
    return q is not None


def words(s):
    """Shell words of s up to the first ';' outside quotes, quotes removed
    (but those inside a $(...) in double quotes), nothing expanded."""
    res, cur, q, esc, started, depth = [], '', None, False, False, 0
    for c in s:
        if esc:
            cur += c
            esc = False
        elif c == '\\' and q != "'":
            cur += c
            esc = True
        elif q == '"' and depth:
            depth += (c == '(') - (c == ')')
            cur += c
        elif q:
            if c == q:
                q = None
            else:
                depth = 1 if q == '"' and c == '(' and cur.endswith('$') else 0
                cur += c
        elif c in '"\'':
            q, started = c, True
        elif c in ' \t\n':
            if cur or started:
                res.append(cur)
            cur, started = '', False
        elif c == ';':
            break
        else:
            cur, started = cur + c, True
    if cur or started:
        res.append(cur)
    return res


def cases():
    for f in sorted(glob.glob(os.path.join(HERE, '*.t'))):
        for st in statements(f):
            t = st.strip().replace('\\\n', ' ')
            m = re.match(r'^(?:.*?(?:then|do|else|;)\s+)?(is|like|unlike|ok|nok)\s', t)
            if not m:
                continue
            w = words(t[m.start(1):])
            d = w[3] if w[0] in ('is', 'like', 'unlike') else w[1]
            yield '%s: %s' % (os.path.basename(f), d.replace('\n', '\\n'))


def table(name, col):
    for ln in open(os.path.join(HERE, name)):
        if ln.strip() and not ln.startswith('#'):
            yield ln.rstrip('\n').split('\t')[col]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else 'list'
    names = list(dict.fromkeys(cases()))
    if mode == 'list':
        print('\n'.join(names))
        return
    twins = {n for m in table('run_code.tsv', 0) for n in m.split(' || ')}
    exempt = set(table('run_code-exempt.tsv', 0))
    for n in names:
        f = n.split(': ', 1)[0]
        if n not in twins and n not in exempt and f + ': *' not in exempt:
            print('no run_code twin and no reason:', n)
    known = set(names) | {n.split(': ', 1)[0] + ': *' for n in names}
    for n in sorted(twins | exempt):
        if n not in known:
            print('named in run_code.tsv or run_code-exempt.tsv but no case of tests/escape:', n)


main()
