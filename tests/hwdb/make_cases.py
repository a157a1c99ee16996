"""make_cases.py - writes the loader's data-driven case folders,
tests/hwdb/cases/<name>/{arch/,gpus/,error|expect}, from the table below.

Each case is the bundled arch/sm_90.yaml plus a small GPU file g1.yaml with
one defect (or none, for the valid-* cases); `error` holds the diagnostic
expected, written by hand (file:line:column, key path, what). Edit the table,
run `python3 tests/hwdb/make_cases.py`, and review the diff: the folders are
the test data, this script only saves typing. test_hwdb_cases.c reads them."""
import os, shutil, textwrap
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, 'cases')
ARCH = open(os.path.join(HERE, '..', '..', 'hwdb', 'arch', 'sm_90.yaml')).read()

GPU = textwrap.dedent('''\
arch: sm_90
identity:
  id: g1
  name: Test GPU
  form_factor: sxm5
sm:
  sm_count: 132
clocks:
  boost_clock_hz: 1.98e9
memory:
  dram_bytes: 85899345920
  dram_bandwidth_bytes_per_s: 3.35e12
  dram_bus_width_bits: 5120
  l2_bytes: 52428800
  dram_access_granularity_bytes: 64
throughput:
  tensor_dense_flops_per_s:
    fp16: 989.5e12
interconnect:
  pcie_generation: 5
  pcie_lanes: 16
  pcie_bandwidth_bytes_per_s: 63e9
sources:
  sm: test
  clocks: test
  memory: test
  throughput: test
  interconnect: test
''')

MEASURED = textwrap.dedent('''\
measured:
  dram_bandwidth_bytes_per_s: 4.3e12
  tensor_flops_per_s:
    bf16: 7.9e14
  method: copy kernel, 1 GiB, best of 20
  date: 2026-11-30
  device: NVIDIA H200
  driver: "580.159.04"
''')

cases = {}
NOGPU = object()
def case(name, gpu=None, arch=None, error=None, expect=None, extra=None, gpu_name='g1.yaml', arch_name='sm_90.yaml'):
    cases[name] = dict(gpu=gpu if gpu is not None else GPU, arch=arch if arch is not None else ARCH,
                       error=error, expect=expect, extra=extra or {}, gpu_name=gpu_name, arch_name=arch_name)

def sub(old, new, text=None, count=1):
    t = GPU if text is None else text
    assert old in t, old
    return t.replace(old, new, count)

# --- valid trees (no error file: must load) ---
case('valid-minimal', expect=['g1 sm_count 132', 'g1 max_threads_per_sm 2048', 'g1 shared_carveout_count 10', 'g1 shared_carveout_bytes[9] 233472', 'g1 tensor_dense_flops_per_s.fp16 989.5e12', 'g1 tensor_dense_flops_per_s.int4 0', 'g1 has_measured 0', 'g1 l2_bandwidth_bytes_per_s 0'])
case('valid-measured', gpu=GPU + MEASURED, expect=['g1 has_measured 1', 'g1 measured_dram_bandwidth_bytes_per_s 4.3e12', 'g1 measured_tensor_flops_per_s.bf16 7.9e14', 'g1 measured_tensor_flops_per_s.fp16 0', 'g1 measured_l2_latency_cycles 0', 'g1 dram_bandwidth_bytes_per_s 3.35e12'])
case('valid-override', gpu=sub('sm:\n  sm_count: 132\n', 'sm:\n  sm_count: 114\n  fp64_lanes_per_sm: 32\n').replace('sources:\n', 'limits:\n  max_blocks_per_sm: 16\n  shared_carveout_bytes: [0, 65536, 233472]\nsources:\n  limits: test\n'), expect=['g1 sm_count 114', 'g1 fp64_lanes_per_sm 32', 'g1 fp32_lanes_per_sm 128', 'g1 max_blocks_per_sm 16', 'g1 max_threads_per_sm 2048', 'g1 shared_carveout_count 3', 'g1 shared_carveout_bytes[1] 65536', 'g1 shared_carveout_bytes[2] 233472'])

# --- thread-block cluster layout (sm.gpc_sms and the cluster limits) ---
CLUSTER = '  cluster_max_blocks_per_sm: 8\n  cluster_max_portable_size: 8\n  cluster_max_size: 16\n'
def with_layout(gpc_sms, rest=CLUSTER):
    return sub('  sm_count: 132\n', '  sm_count: 132\n  gpc_sms: ' + gpc_sms + '\n' + rest)
case('valid-cluster-layout', gpu=with_layout('[18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2]'),
     expect=['g1 sm_count 132', 'g1 cluster_max_blocks_per_sm 8', 'g1 cluster_max_portable_size 8', 'g1 cluster_max_size 16'])
case('gpc-sms-bad-entry', gpu=with_layout('[66, 0, 66]'),
     error=['gpus/g1.yaml:8:17: sm.gpc_sms[1]: expected an integer in 1..1024, got "0"'])
case('gpc-sms-not-a-list', gpu=with_layout('132'),
     error=['gpus/g1.yaml:8:12: sm.gpc_sms: expected a list of integers (each in 1..1024), got "132"'])
case('gpc-sms-sum-mismatch', gpu=with_layout('[66, 64]'),
     error=["gpus/g1.yaml:8:12: sm.gpc_sms: the GPCs' SMs add up to 130, but sm_count is 132"])
case('cluster-layout-incomplete', gpu=with_layout('[66, 66]', '  cluster_max_blocks_per_sm: 8\n'),
     error=['gpus/g1.yaml:8:12: sm.cluster_max_portable_size: required with sm.gpc_sms'])

# --- unknown keys ---
case('unknown-key', gpu=sub('  l2_bytes: 52428800\n', '  l2_bytes: 52428800\n  dram_bandwith_bytes_per_s: 3e12\n'),
     error=['gpus/g1.yaml:15:3: memory.dram_bandwith_bytes_per_s: unknown key', 'did you mean dram_bandwidth_bytes_per_s'])
case('unknown-key-wrong-group', gpu=sub('  l2_bytes: 52428800\n', '  l2_bytes: 52428800\n  sm_count: 100\n'),
     error=['gpus/g1.yaml:15:3: memory.sm_count: unknown key', 'belongs in sm'])
case('unknown-top-key', gpu=GPU + 'colour: green\n', error=['gpus/g1.yaml:29:1: colour: unknown key'])
case('unknown-source-group', gpu=sub('  sm: test\n', '  sm: test\n  gossip: test\n'),
     error=['gpus/g1.yaml:25:3: sources.gossip: unknown group'])
case('unknown-dtype', gpu=sub('    fp16: 989.5e12\n', '    fp16: 989.5e12\n    fp7: 1e12\n'),
     error=['gpus/g1.yaml:19:5: throughput.tensor_dense_flops_per_s.fp7: unknown data type'])

# --- duplicates ---
case('duplicate-key', gpu=sub('  sm_count: 132\n', '  sm_count: 132\n  sm_count: 114\n'),
     error=['gpus/g1.yaml:8:3: sm.sm_count: duplicate key (first given at line 7)'])
case('duplicate-group', gpu=GPU + 'sm:\n  sm_count: 1\n',
     error=['gpus/g1.yaml:29:1: sm: duplicate key (first given at line 6)'])
case('duplicate-dtype', gpu=sub('    fp16: 989.5e12\n', '    fp16: 989.5e12\n    fp16: 1e12\n'),
     error=['gpus/g1.yaml:19:5: throughput.tensor_dense_flops_per_s.fp16: duplicate key'])

# --- wrong types ---
case('wrong-type-string', gpu=sub('dram_bandwidth_bytes_per_s: 3.35e12', 'dram_bandwidth_bytes_per_s: fast'),
     error=['gpus/g1.yaml:12:31: memory.dram_bandwidth_bytes_per_s: expected a number in 1e9..1e14, got "fast"'])
case('wrong-type-quoted-number', gpu=sub('dram_bandwidth_bytes_per_s: 3.35e12', 'dram_bandwidth_bytes_per_s: "3.35e12"'),
     error=['gpus/g1.yaml:12:31: memory.dram_bandwidth_bytes_per_s: expected a number in 1e9..1e14, got "3.35e12" (a quoted string)'])
case('wrong-type-list-for-group', gpu=sub('sm:\n  sm_count: 132\n', 'sm: [132]\n'),
     error=['gpus/g1.yaml:6:5: sm: expected a mapping of keys to values, got a list'])
case('wrong-type-map-for-number', gpu=sub('  sm_count: 132\n', '  sm_count:\n    value: 132\n'),
     error=['gpus/g1.yaml:8:5: sm.sm_count: expected an integer in 1..4096, got a mapping'])
case('wrong-type-empty-value', gpu=sub('  sm_count: 132\n', '  sm_count:\n'),
     error=['gpus/g1.yaml:7:12: sm.sm_count: expected an integer in 1..4096, got nothing'])
case('wrong-type-list-for-text', gpu=sub('  name: Test GPU\n', '  name: [Test, GPU]\n'),
     error=['gpus/g1.yaml:4:9: identity.name: expected a string, got a list'])
case('wrong-type-number-for-carveouts', gpu=GPU.replace('sm:\n', 'limits:\n  shared_carveout_bytes: 233472\nsm:\n', 1).replace('sources:\n', 'sources:\n  limits: test\n'),
     error=['gpus/g1.yaml:7:26: limits.shared_carveout_bytes: expected a list of byte sizes in ascending order, got "233472"'])
case('hex-number', gpu=sub('  sm_count: 132\n', '  sm_count: 0x84\n'),
     error=['gpus/g1.yaml:7:13: sm.sm_count: expected an integer in 1..4096, got "0x84"'])
case('infinity', gpu=sub('dram_bandwidth_bytes_per_s: 3.35e12', 'dram_bandwidth_bytes_per_s: .inf'),
     error=['gpus/g1.yaml:12:31: memory.dram_bandwidth_bytes_per_s: expected a number in 1e9..1e14, got ".inf"'])

# --- ranges and integers ---
case('out-of-range', gpu=sub('  sm_count: 132\n', '  sm_count: 5000\n'),
     error=['gpus/g1.yaml:7:13: sm.sm_count: expected an integer in 1..4096, got "5000"'])
case('out-of-range-negative', gpu=sub('dram_bandwidth_bytes_per_s: 3.35e12', 'dram_bandwidth_bytes_per_s: -3.35e12'),
     error=['gpus/g1.yaml:12:31: memory.dram_bandwidth_bytes_per_s: expected a number in 1e9..1e14, got "-3.35e12"'])
case('out-of-range-dtype', gpu=sub('    fp16: 989.5e12\n', '    fp16: 1e19\n'),
     error=['gpus/g1.yaml:18:11: throughput.tensor_dense_flops_per_s.fp16: expected a number in 0..1e18, got "1e19"'])
case('non-integer', gpu=sub('  sm_count: 132\n', '  sm_count: 131.5\n'),
     error=['gpus/g1.yaml:7:13: sm.sm_count: expected an integer in 1..4096, got "131.5"'])
case('non-integer-carveout', gpu=GPU.replace('sm:\n', 'limits:\n  shared_carveout_bytes: [0, 8192.5, 233472]\nsm:\n', 1).replace('sources:\n', 'sources:\n  limits: test\n'),
     error=['gpus/g1.yaml:7:30: limits.shared_carveout_bytes[1]: expected an integer in 0..16777216, got "8192.5"'])
case('carveouts-not-ascending', gpu=GPU.replace('sm:\n', 'limits:\n  shared_carveout_bytes: [0, 65536, 32768, 233472]\nsm:\n', 1).replace('sources:\n', 'sources:\n  limits: test\n'),
     error=['gpus/g1.yaml:7:37: limits.shared_carveout_bytes[2]: expected ascending sizes, got 32768 after 65536'])
case('carveout-max-not-shared-per-sm', gpu=GPU.replace('sm:\n', 'limits:\n  shared_carveout_bytes: [0, 65536, 131072]\nsm:\n', 1).replace('sources:\n', 'sources:\n  limits: test\n'),
     error=['gpus/g1.yaml:7:26: limits.shared_carveout_bytes: the largest carveout (131072) must equal shared_bytes_per_sm (233472)'])
case('threads-not-warps-times-warp-size', gpu=GPU.replace('sm:\n', 'limits:\n  max_warps_per_sm: 48\nsm:\n', 1).replace('sources:\n', 'sources:\n  limits: test\n'),
     error=['arch/sm_90.yaml:9:23: limits.max_threads_per_sm: expected max_warps_per_sm * warp_size = 1536, got 2048'])

# --- missing ---
case('missing-required', gpu=sub('  dram_bus_width_bits: 5120\n', ''),
     error=['gpus/g1.yaml:10:1: memory.dram_bus_width_bits: required for nvidia GPUs, given neither here nor in arch/sm_90.yaml'])
case('missing-required-group', gpu=sub('interconnect:\n  pcie_generation: 5\n  pcie_lanes: 16\n  pcie_bandwidth_bytes_per_s: 63e9\n', '').replace('  interconnect: test\n', ''),
     error=['gpus/g1.yaml:1:1: interconnect.pcie_generation: required for nvidia GPUs'])
case('missing-required-dtypes', gpu=sub('throughput:\n  tensor_dense_flops_per_s:\n    fp16: 989.5e12\n', '').replace('  throughput: test\n', ''),
     error=['gpus/g1.yaml:1:1: throughput.tensor_dense_flops_per_s: required for nvidia GPUs'])
case('missing-dram-latency', arch=ARCH.replace('  dram_latency_cycles: 655\n', '', 1),
     error=['gpus/g1.yaml:1:1: latency.dram_latency_cycles: required for nvidia GPUs, given neither here nor in arch/sm_90.yaml'])
case('missing-arch-key', gpu=GPU.replace('arch: sm_90\n', '', 1),
     error=['gpus/g1.yaml:1:1: arch: required'])
case('missing-id', gpu=sub('  id: g1\n', ''),
     error=['gpus/g1.yaml:2:1: identity.id: required, and equal to the file name (g1)'])
case('missing-source', gpu=sub('  memory: test\n', ''),
     error=['gpus/g1.yaml:10:1: sources.memory: required: this file gives memory figures'])
case('empty-source', gpu=sub('  memory: test\n', '  memory: ""\n'),
     error=['gpus/g1.yaml:26:11: sources.memory: expected a non-empty string'])

# --- identity and architecture ---
case('unknown-arch', gpu=sub('arch: sm_90\n', 'arch: sm_99\n'),
     error=['gpus/g1.yaml:1:7: arch: unknown architecture "sm_99" (no arch/sm_99.yaml)'])
case('id-mismatch', gpu=sub('  id: g1\n', '  id: g2\n'),
     error=['gpus/g1.yaml:3:7: identity.id: "g2" does not match the file name g1.yaml'])
case('arch-id-mismatch', arch=ARCH.replace('arch: sm_90\n', 'arch: sm_91\n', 1),
     error=['arch/sm_90.yaml:2:7: arch: "sm_91" does not match the file name sm_90.yaml'])
case('name-in-arch-file', arch=ARCH.replace('  vendor: nvidia\n', '  vendor: nvidia\n  name: Hopper\n', 1),
     error=['arch/sm_90.yaml:5:3: identity.name: belongs in a GPU file'])
case('unknown-vendor', arch=ARCH.replace('  vendor: nvidia\n', '  vendor: intel\n', 1),
     error=['arch/sm_90.yaml:4:11: identity.vendor: expected nvidia or amd, got "intel"'])
case('vendor-mismatch', gpu=sub('  form_factor: sxm5\n', '  form_factor: sxm5\n  vendor: amd\n'),
     error=['gpus/g1.yaml:6:11: identity.vendor: "amd" differs from arch/sm_90.yaml\'s "nvidia"'])
case('bad-compute-capability', gpu=sub('  form_factor: sxm5\n', '  form_factor: sxm5\n  compute_capability: "6.1"\n'),
     error=['gpus/g1.yaml:6:23: identity.compute_capability: expected a compute capability 7.0..12.9'])
case('amd-group-on-nvidia', gpu=GPU.replace('sm:\n', 'amd:\n  simds_per_cu: 4\nsm:\n', 1).replace('sources:\n', 'sources:\n  amd: test\n'),
     error=['gpus/g1.yaml:6:1: amd: the amd group is for vendor amd only'])
case('bad-file-name', gpu_name='G1.yaml', gpu=sub('  id: g1\n', '  id: G1\n'),
     error=['gpus/G1.yaml: a file name must be <id>.yaml'])
case('yml-extension', gpu_name='g1.yml',
     error=['gpus/g1.yml: database files end in .yaml'])
case('no-gpus', gpu=NOGPU, extra={'gpus/.keep': ''},
     error=['gpus: no GPU files (<id>.yaml) in the directory'])

# --- YAML itself ---
case('malformed-yaml', gpu=sub('  sm_count: 132\n', '  sm_count: [132\n'),
     error=['gpus/g1.yaml:8:7: YAML syntax error: did not find expected \',\' or \']\' while parsing a flow sequence (line 7)'])
case('malformed-yaml-indent', gpu=sub('  name: Test GPU\n', '  name: Test GPU\n   bad: indent\n'),
     error=['gpus/g1.yaml:5:7: YAML syntax error: mapping values are not allowed in this context'])
case('tab-indent', gpu=sub('  sm_count: 132\n', '\tsm_count: 132\n'),
     error=['gpus/g1.yaml:7:1: YAML syntax error'])
case('empty-file', gpu='', error=['gpus/g1.yaml:1:1: empty file'])
case('comments-only', gpu='# nothing here yet\n\n', error=['gpus/g1.yaml:1:1: empty file'])
case('top-level-list', gpu='- arch: sm_90\n', error=['gpus/g1.yaml:1:1: expected a mapping of groups at the top of the file, got a list'])
case('two-documents', gpu=GPU + '---\narch: sm_90\n', error=['gpus/g1.yaml:30:1: more than one YAML document in the file'])
case('alias', gpu=sub('  dram_bus_width_bits: 5120\n', '  dram_bus_width_bits: &w 5120\n').replace('  l2_bytes: 52428800\n', '  l2_bytes: *w\n'),
     error=['gpus/g1.yaml:14:3: memory.l2_bytes: YAML aliases are not allowed (this repeats the value at line 13)'])
case('invalid-utf8', gpu=GPU.replace('Test GPU', 'Test \udcff GPU'),
     error=['gpus/g1.yaml:4:14: YAML syntax error: invalid leading UTF-8 octet'])

# --- the measured section ---
case('measured-missing-method', gpu=GPU + MEASURED.replace('  method: copy kernel, 1 GiB, best of 20\n', ''),
     error=['gpus/g1.yaml:29:1: measured.method: required in a measured section'])
case('measured-unknown-key', gpu=GPU + MEASURED.replace('  date:', '  dram_bandwidth: 4e12\n  date:'),
     error=['gpus/g1.yaml:34:3: measured.dram_bandwidth: unknown key'])
case('measured-prefixed-key', gpu=GPU + MEASURED.replace('  dram_bandwidth_bytes_per_s:', '  measured_dram_bandwidth_bytes_per_s:'),
     error=['gpus/g1.yaml:30:3: measured.measured_dram_bandwidth_bytes_per_s: unknown key'])
case('measured-bad-date', gpu=GPU + MEASURED.replace('2026-11-30', '30/11/2026'),
     error=['gpus/g1.yaml:34:9: measured.date: expected an ISO 8601 date (2025-01-31), got "30/11/2026"'])
case('measured-out-of-range', gpu=GPU + MEASURED.replace('4.3e12', '4.3e16'),
     error=['gpus/g1.yaml:30:31: measured.dram_bandwidth_bytes_per_s: expected a number in 1e9..1e14, got "4.3e16"'])
case('measured-no-figures', gpu=GPU + 'measured:\n  method: m\n  date: 2026-11-30\n  device: d\n  driver: "1"\n',
     error=['gpus/g1.yaml:29:1: measured: expected at least one measured figure'])
case('measured-in-arch', arch=ARCH + MEASURED,
     error=['arch/sm_90.yaml:%d:1: measured: measured figures belong to one card' % (ARCH.count('\n') + 1)])
case('measured-not-a-map', gpu=GPU + 'measured: yes\n',
     error=['gpus/g1.yaml:29:11: measured: expected a mapping of keys to values, got "yes"'])

# --- achievable fractions (the arch file carries them all; a GPU file may override) ---
ACH_GPU = sub('    fp16: 989.5e12\n', '    fp16: 989.5e12\n    bf16: 989.5e12\n')
def with_achievable(block, source=None, text=ACH_GPU):
    t = text.replace('sources:\n', block + 'sources:\n' + ('  achievable: "%s"\n' % source if source else ''), 1)
    return t
ARCH_ACH = ARCH[ARCH.index('achievable:\n'):ARCH.index('sources:\n')]
TEST_ACH = ('achievable:\n  dram_bandwidth: 0.9\n  dram_write_bandwidth: 0.9\n  dram_copy_bandwidth: 0.8\n'
            '  l2_bandwidth: 0.8\n  fp32: 0.8\n  fp64: 0.6\n  tensor:\n    fp64: 0.7\n    tf32: 0.7\n'
            '    fp16: 0.7\n    bf16: 0.7\n    fp8: 0.7\n    int8: 0.7\n')
import re as _re
ARCH_TEST_ACH = _re.sub(r'  achievable: ".*"\n', '  achievable: "test: the architecture\'s defaults"\n',
                        ARCH.replace(ARCH_ACH, TEST_ACH, 1))
case('achievable-missing-source', gpu=with_achievable('achievable:\n  fp64: 0.5\n'),
     error=['gpus/g1.yaml:24:1: sources.achievable: required: this file gives achievable figures, say where they came from'])
case('achievable-out-of-range', gpu=with_achievable('achievable:\n  l2_bandwidth: 1.5\n', 'test'),
     error=['gpus/g1.yaml:25:17: achievable.l2_bandwidth: expected a number in 0..1, got "1.5"'])
case('valid-achievable-merge', arch=ARCH_TEST_ACH,
     gpu=with_achievable('achievable:\n  dram_bandwidth: 0.85\n  tensor:\n    bf16: 0.75\n', 'test: this card'),
     expect=['g1 achievable_dram_bandwidth 0.85', 'g1 achievable_fp32 0.8', 'g1 achievable_tensor.fp16 0.7',
             'g1 achievable_tensor.bf16 0.75', 'g1 achievable_fp64 0.6'])
case('achievable-missing-required', arch=_re.sub(r'  l2_bandwidth: 0\.\d+ .*\n', '', ARCH, count=1),
     error=['gpus/g1.yaml:1:1: achievable.l2_bandwidth: required for nvidia GPUs, given neither here nor in arch/sm_90.yaml'])
case('achievable-missing-tensor-dtype', gpu=sub('    fp16: 989.5e12\n', '    fp16: 989.5e12\n    int4: 3958e12\n'),
     error=['achievable_tensor: has no fraction for int4'])
case('achievable-missing-sparse-dtype',
     gpu=sub('    fp16: 989.5e12\n', '    fp16: 989.5e12\n  tensor_sparse_flops_per_s:\n    nvfp4: 1e16\n'),
     error=['achievable_tensor: has no fraction for nvfp4, which has a sparse tensor rate'])
case('valid-narrow-types',
     gpu=sub('    fp16: 989.5e12\n', '    fp16: 989.5e12\n    fp6: 2e15\n    nvfp4: 4e15\n'),
     arch=_re.sub(r'(  tensor:.*\n)', r'\1    fp6: 0.7\n    nvfp4: 0.7\n', ARCH, count=1),
     expect=['g1 tensor_dense_flops_per_s.fp6 2e15', 'g1 tensor_dense_flops_per_s.nvfp4 4e15',
             'g1 achievable_tensor.nvfp4 0.7'])

if os.path.isdir(ROOT):
    shutil.rmtree(ROOT)
for name, c in sorted(cases.items()):
    d = os.path.join(ROOT, name)
    os.makedirs(os.path.join(d, 'arch'))
    os.makedirs(os.path.join(d, 'gpus'))
    with open(os.path.join(d, 'arch', c['arch_name']), 'w', encoding='utf-8', errors='surrogateescape') as f:
        f.write(c['arch'])
    if c['gpu'] is not NOGPU:
        with open(os.path.join(d, 'gpus', c['gpu_name']), 'w', encoding='utf-8', errors='surrogateescape') as f:
            f.write(c['gpu'])
    for rel, text in c['extra'].items():
        with open(os.path.join(d, rel), 'w') as f:
            f.write(text)
    if c['expect']:
        with open(os.path.join(d, 'expect'), 'w') as f:
            f.write('\n'.join(c['expect']) + '\n')
    if c['error']:
        with open(os.path.join(d, 'error'), 'w') as f:
            f.write('\n'.join(c['error']) + '\n')
print(len(cases), 'cases')
