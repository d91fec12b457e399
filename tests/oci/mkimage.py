#!/usr/bin/python3
# mkimage.py FORMAT OUT SPEC.json: build a test image, FORMAT oci (a layout
# directory) or docker (a save tar). SPEC: {"config": {...}, "layers":
# [[entry, ...], ...]}; an entry {"name", "type": "file|dir|sym|link|chr|fifo",
# "data", "link", "mode"}; "gzip": true compresses the layers; "corrupt": N
# changes a byte of layer N after its digest is taken.
import gzip, hashlib, io, json, os, sys, tarfile

fmt, out, spec = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
TYPES = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE,
         "link": tarfile.LNKTYPE, "chr": tarfile.CHRTYPE, "fifo": tarfile.FIFOTYPE}


def layer(entries):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=tarfile.PAX_FORMAT) as t:
        for e in entries:
            if "from" in e:  # a whole directory tree from the host
                src, arc = e["from"], e["name"]
                # what the caller cannot read (a root-built tree's
                # /etc/shadow) is left out
                keep = lambda i: i if os.access(src + i.name[len(arc):], os.R_OK, follow_symlinks=False) else None
                t.add(src, arcname=arc, filter=keep)
                continue
            i = tarfile.TarInfo(e["name"])
            i.type = TYPES[e.get("type", "file")]
            i.mode = int(e.get("mode", "755" if e.get("type") == "dir" else "644"), 8)
            i.linkname = e.get("link", "")
            if i.type == tarfile.CHRTYPE:
                i.devmajor, i.devminor = 1, 3
            data = e.get("data", "").encode()
            i.size = len(data) if i.type == tarfile.REGTYPE else 0
            t.addfile(i, io.BytesIO(data) if i.size else None)
    return b.getvalue()


raws = [layer(l) for l in spec["layers"]]
blobs = [gzip.compress(r) if spec.get("gzip") else r for r in raws]
cfg = {"architecture": "amd64", "os": "linux", "config": spec.get("config", {}),
       "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(r).hexdigest() for r in raws]}}
cfgb = json.dumps(cfg).encode()
sha = lambda b: hashlib.sha256(b).hexdigest()
digests = [sha(b) for b in blobs]
if "corrupt" in spec:
    n = spec["corrupt"]
    blobs[n] = blobs[n][:-1] + bytes([blobs[n][-1] ^ 1])
if fmt == "oci":
    os.makedirs(out + "/blobs/sha256")
    def put(b, d=None):
        d = d or sha(b)
        open(out + "/blobs/sha256/" + d, "wb").write(b)
        return d
    lt = "application/vnd.oci.image.layer.v1.tar" + ("+gzip" if spec.get("gzip") else "")
    man = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
           "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + put(cfgb), "size": len(cfgb)},
           "layers": [{"mediaType": lt, "digest": "sha256:" + put(b, d), "size": len(b)} for b, d in zip(blobs, digests)]}
    mb = json.dumps(man).encode()
    idx = {"schemaVersion": 2, "manifests": [{"mediaType": man["mediaType"], "digest": "sha256:" + put(mb), "size": len(mb),
           "annotations": {"org.opencontainers.image.ref.name": "test"}}]}
    open(out + "/index.json", "w").write(json.dumps(idx))
    open(out + "/oci-layout", "w").write('{"imageLayoutVersion":"1.0.0"}')
else:
    with tarfile.open(out, "w") as t:
        def add(name, b):
            i = tarfile.TarInfo(name); i.size = len(b); t.addfile(i, io.BytesIO(b))
        add(sha(cfgb) + ".json", cfgb)
        names = []
        for k, b in enumerate(blobs):
            names.append("layer%d/layer.tar" % k)
            add(names[-1], b)
        add("manifest.json", json.dumps([{"Config": sha(cfgb) + ".json", "RepoTags": ["test:1"], "Layers": names}]).encode())
