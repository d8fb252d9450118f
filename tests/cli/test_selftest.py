#!/usr/bin/python3
"""`ctrecon-cli selftest`: the product (here without a device, or without
CUDA: CPU chosen, exit 0) and the CLI built on the CUDA emulation harness
(tests/gpu-emu): a sound emulated device passes and is chosen; a wrong
kernel result (CTR_EMU_CORRUPT_KERNEL: the SCSR kernel's first block is
skipped) fails the self-check, exit 1, the CPU is chosen and the reason
says so.  The emulated device is no GPU: no timing here means anything."""
import json
import os
import subprocess
import sys


def run(cli, extra_env=None):
    env = dict(os.environ)
    env.update(extra_env or {})
    r = subprocess.run([cli, 'selftest'], capture_output=True, text=True, env=env, timeout=500)
    return r.returncode, r.stdout + r.stderr


def expect(cond, what, out):
    if not cond:
        print('FAIL:', what)
        print(out)
        sys.exit(1)


code, out = run(os.environ['CTR_CLI'])
print(out)
expect(code == 0, 'the product exits 0 (no GPU here, or a GPU that passed)', out)
expect('backend chosen:' in out, 'the product names the backend chosen', out)

emu = os.environ['CTR_CLI_EMU']
code, out = run(emu)
print(out)
expect(code == 0, 'a sound emulated device passes', out)
expect('self-check passed' in out, 'the report says passed', out)
expect('CTR emulated CUDA device' in out, 'the device is named (and is no GPU)', out)
expect('backend chosen: cuda' in out, 'cuda is chosen', out)
for line in ('forward product', 'transposed product', 'parallel ART', 'FDK L1-Tran', 'FDK texture',
             'cone forward', 'cone transposed'):
    expect(line in out, 'the report lists ' + line, out)

code, out = run(emu, {'CTR_EMU_CORRUPT_KERNEL': 'orbit_rows', 'CTR_EMU_QUIET': '1'})
print(out)
expect(code == 1, 'a wrong kernel result exits 1', out)
expect('self-check FAILED' in out, 'the report says FAILED', out)
expect('backend chosen: cpu' in out, 'the CPU is chosen', out)
expect('self-check failed' in out, 'the choice says why', out)
# a wrong cone-beam back-projection: the check names it
code, out = run(emu, {'CTR_EMU_CORRUPT_KERNEL': 'cone_adjoint_k', 'CTR_EMU_QUIET': '1'})
print(out)
expect(code == 1, 'a wrong cone-beam kernel result exits 1', out)
expect('cone-beam back-projection differs' in out, 'the reason names the cone back-projection', out)
expect('backend chosen: cpu' in out, 'the CPU is chosen', out)
# `bench cone --backend cuda` runs SIRT on the GPU's cone pair
r = subprocess.run([emu, 'bench', 'cone', '--backend', 'cuda', '--volume', '24x24x10', '--views', '20', '--rows', '12',
                    '--cols', '24', '-n', '3'], capture_output=True, text=True, timeout=500)
out = r.stdout + r.stderr
expect(r.returncode == 0, 'bench cone --backend cuda runs on the emulated device', out)
b = json.loads(r.stdout.strip().splitlines()[-1])
expect(b['backend'] == 'cuda' and b['operator'] == 'cuda-cone', 'the cone pair of the device ran', out)
whole = b['centre_value_per_mm']
# `--device-memory-mb` below what the whole pair needs: out of core, the
# same image; a bad value is refused
r = subprocess.run([emu, 'bench', 'cone', '--backend', 'cuda', '--volume', '24x24x10', '--views', '20', '--rows', '12',
                    '--cols', '24', '-n', '3', '--device-memory-mb', '0.1'], capture_output=True, text=True, timeout=500)
out = r.stdout + r.stderr
expect(r.returncode == 0, 'bench cone --device-memory-mb 0.1 runs on the emulated device', out)
b = json.loads(r.stdout.strip().splitlines()[-1])
expect(b['operator'] == 'cuda-cone-split' and 'z-slabs' in r.stderr, 'the pair ran out of core and said so', out)
expect(abs(b['centre_value_per_mm'] - whole) <= 1e-5 * abs(whole), 'out of core gives the whole pair\'s image', out)
r = subprocess.run([emu, 'bench', 'cone', '--device-memory-mb', '-3'], capture_output=True, text=True, timeout=60)
expect(r.returncode == 2 and 'device-memory-mb' in r.stderr, 'a negative --device-memory-mb is refused', r.stderr)
# `bench fdk --backend cuda` goes through the backend's FDK (app/ includes
# no gpu/ header): both kernels run and the water cylinder comes out water.
r = subprocess.run([emu, 'bench', 'fdk', '--backend', 'cuda', '--volume', '24x24x16', '--views', '24',
                    '--detector', '20', '24'], capture_output=True, text=True, timeout=500)
out = r.stdout + r.stderr
expect(r.returncode == 0, 'bench fdk --backend cuda runs on the emulated device', out)
b = json.loads(r.stdout.strip().splitlines()[-1])
expect(b['backend'] == 'cuda' and set(b['kernels']) == {'l1tran', 'texture'}, 'both kernels are timed', out)
expect(abs(b['centre_value_per_mm'] / b['true_value_per_mm'] - 1) < 0.02,
       "the GPU FDK's water cylinder is water within 2 %", out)
print('selftest: ok')
