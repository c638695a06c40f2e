"""An OCI image archive of one root file system, for `ctr image import`.

    ociarchive.py ROOTFS_DIR NAME OUT.tar [ENTRYPOINT...]

One layer (the folder as tar makes it), a config with no command of its
own (or the ENTRYPOINT given: a pod sandbox's image needs one), the name in the index's io.containerd.image.name (what containerd
names the imported image).  No image can be pulled here: this is how
the suite makes one for containerd from lib.sh's rootfs."""
import hashlib
import io
import json
import subprocess
import sys
import tarfile

root, name, out = sys.argv[1:4]
entrypoint = sys.argv[4:]
layer = subprocess.run(["tar", "-C", root, "--numeric-owner", "-c", "."], check=True,
                       stdout=subprocess.PIPE).stdout


def blob(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


config = json.dumps({"architecture": "amd64", "os": "linux",
                     "config": {"Entrypoint": entrypoint} if entrypoint else {},
                     "rootfs": {"type": "layers", "diff_ids": [blob(layer)]}}).encode()
manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                                  "digest": blob(config), "size": len(config)},
                       "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                                   "digest": blob(layer), "size": len(layer)}]}).encode()
index = json.dumps({"schemaVersion": 2, "manifests": [
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": blob(manifest), "size": len(manifest),
     "annotations": {"io.containerd.image.name": name, "org.opencontainers.image.ref.name": "latest"}}]}).encode()
with tarfile.open(out, "w") as tar:
    for path, data in [("oci-layout", b'{"imageLayoutVersion":"1.0.0"}'), ("index.json", index)] + [
            ("blobs/sha256/" + blob(d)[7:], d) for d in (layer, config, manifest)]:
        info = tarfile.TarInfo(path)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
