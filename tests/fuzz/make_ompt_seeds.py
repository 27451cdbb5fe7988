#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seed corpus of fuzz_ompt.c (tests/fuzz/corpus/ompt/): real batches of libpmompt.so,
# captured from omp_regions on a SOCK_SEQPACKET socket as pmcollect would read them (run once after
# `make tests`; the output is committed). Usage: make_ompt_seeds.py [build-dir]
import hashlib
import os
import socket
import subprocess
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "build")
out = os.path.join(top, "tests", "fuzz", "corpus", "ompt")
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
env = dict(os.environ, OMP_NUM_THREADS="4", KMP_BLOCKTIME="0", PMT_OMPT_FD=str(theirs.fileno()),
           OMP_TOOL_LIBRARIES=os.path.abspath(os.path.join(build, "lib", "libpmompt.so")))
subprocess.run([os.path.join(build, "workloads", "omp_regions"), "-w", "1", "-n", "40"], env=env,
               pass_fds=[theirs.fileno()], stdout=subprocess.DEVNULL, check=True)
theirs.close()
batches = []
while True:
    m = ours.recv(8192)
    if not m:
        break
    batches.append(m)
os.makedirs(out, exist_ok=True)
# the first batches (HELLO, OBJECT and NAME records), one of regions, the last (END)
for m in batches[:3] + batches[-2:]:
    with open(os.path.join(out, hashlib.sha1(m).hexdigest()), "wb") as f:
        f.write(m)
print("%d batches captured, %d written to %s" % (len(batches), len(batches[:3] + batches[-2:]), out))
