# mkdeb.py OUT NAME ENTRIES_JSON: a .deb (ar: debian-binary, control.tar.gz,
# data.tar.gz) whose data holds ENTRIES, [type, name, mode, text or link
# target] with type f d l (symlink) h (hard link) c (device) p (fifo): the
# hostile packages of tests/89-mcp-apt-unpack.t, made without privilege.
import io, json, sys, tarfile, time
out, name, entries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
def tgz(items):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode='w:gz', format=tarfile.GNU_FORMAT) as t:
        for kind, n, mode, extra in items:
            i = tarfile.TarInfo(n); i.mode = mode; i.mtime = int(time.time())
            data = None
            if kind == 'f': data = extra.encode(); i.size = len(data)
            elif kind == 'd': i.type = tarfile.DIRTYPE
            elif kind == 'l': i.type = tarfile.SYMTYPE; i.linkname = extra
            elif kind == 'h': i.type = tarfile.LNKTYPE; i.linkname = extra
            elif kind == 'c': i.type = tarfile.CHRTYPE; i.devmajor, i.devminor = 1, 3
            elif kind == 'p': i.type = tarfile.FIFOTYPE
            t.addfile(i, io.BytesIO(data) if data is not None else None)
    return b.getvalue()
control = f"Package: {name}\nVersion: 1.0\nArchitecture: all\nMaintainer: sr tests <t@example.org>\nInstalled-Size: 4\nDescription: a test package\n"
members = [('debian-binary', b'2.0\n'), ('control.tar.gz', tgz([('d', './', 0o755, None), ('f', './control', 0o644, control)])),
           ('data.tar.gz', tgz(entries))]
with open(out, 'wb') as f:
    f.write(b'!<arch>\n')
    for n, d in members:
        f.write(f'{n:<16}{int(time.time()):<12}{0:<6}{0:<6}{0o100644:<8o}{len(d):<10}`\n'.encode())
        f.write(d + (b'\n' if len(d) % 2 else b''))
