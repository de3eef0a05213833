#!/usr/bin/env python3
"""Writes the seed inputs of one fuzz target (fuzz/fuzz_<target>.cpp) into a folder.

usage: fuzz_seeds.py TARGET FOLDER    TARGET: config | job | safetensors | gguf

config: the test fixtures and every models.json config, deep, long, duplicate-key and
huge-number texts. job: the jobs of the benchmarks and presets, every engine, every
question's fields, cluster objects after a NUL. safetensors / gguf: the checkpoint
fixtures and variants (truncated, lengths past the limits, counts past the limits).
"""
import glob
import json
import os
import struct
import sys

target, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
fixtures = os.path.join(root, 'tests', 'fixtures')


def write(name, data):
    if isinstance(data, str):
        data = data.encode('utf-8', 'surrogatepass')
    open(os.path.join(out, name), 'wb').write(data)


def fixture(name):
    return open(os.path.join(fixtures, name), 'rb').read()


if target == 'config':
    for path in glob.glob(os.path.join(fixtures, '*.json')):
        write(os.path.basename(path), fixture(os.path.basename(path)))
    for m in json.load(open(os.path.join(root, 'models.json')))['models']:
        write(m['id'] + '.json', json.dumps(m['config']))
    llama = json.load(open(os.path.join(fixtures, 'llama-3-8b.config.json')))
    seeds = {
        'deep-64': '[' * 64 + ']' * 64,
        'deep-65': '{"a":' * 65 + '1' + '}' * 65,
        'deep-55000': '[' * 55000 + ']' * 55000,
        'long-string': json.dumps({**llama, 'model_type': 'x' * 100000}),
        'duplicate': json.dumps(llama)[:-1] + ', "hidden_size": 8192}',
        'huge-numbers': '{"model_type":"llama","hidden_size":1e308,"num_hidden_layers":18446744073709551615}',
        'deep-layers': json.dumps({**llama, 'num_hidden_layers': 10000}),
        'skip-lists': json.dumps({**llama, 'quantization_config': {
            'quant_method': 'compressed-tensors', 'ignore': ['lm_head', 're:.*mlp.gate$', 're:(a|a)*b'],
            'config_groups': {'group_0': {'targets': ['Linear'], 'weights': {'num_bits': 4, 'type': 'int',
                                                                            'strategy': 'group', 'group_size': 128}}}}}),
        'bnb-skip': json.dumps({**llama, 'quantization_config': {
            'quant_method': 'bitsandbytes', 'load_in_4bit': True, 'llm_int8_skip_modules': ['lm_head', 'model.layers.1.mlp']}}),
    }
    for name, text in seeds.items():
        write('seed-' + name + '.json', text)
    write('seed-bad-utf8.json', b'{"model_type":"llama\xff"}')
elif target == 'job':
    jobs = [
        {}, {'mode': 'train', 'checkpointing': 'full', 'batch': 4, 'seq': 2048}, {'mode': 'qlora', 'lora_rank': 64},
        {'mode': 'train', 'gpus': 64, 'zero': 3, 'pp': 4, 'optimizer': 'adam_8bit'},
        {'mode': 'lora', 'lora_targets': 'q_proj,v_proj', 'lora_rank': 4096},
        {'engine': 'vllm', 'gpu': 'h100', 'seq': 8192}, {'engine': 'sglang', 'gpu': 'h200', 'gpus': 8},
        {'engine': 'llamacpp', 'dtype': 'q4_k_m', 'gpu': 't4', 'n_gpu_layers': 20, 'gpus': 2, 'split_mode': 'row'},
        {'engine': 'ollama', 'dtype': 'q8_0', 'gpu': 'rtx4090', 'gpus': 3, 'tensor_split': '3,1,1'},
        {'engine': 'hf', 'new_tokens': 128, 'cache_implementation': 'static'},
        {'framework': 'megatron', 'mode': 'train', 'gpus': 16, 'tp': 4, 'pp': 2, 'pp_schedule': 'interleaved_1f1b'},
        {'framework': 'torchtitan', 'mode': 'train', 'gpus': 8, 'fp8': 'torchao'},
        {'batch': '+4', 'seq': '1e3', 'checkpointing': 'true', 'flash_attention': 'yes'},
        {'batch': 1e300, 'seq': -1, 'gpus': 18446744073709551615},
    ]
    clusters = [{}, {'gpus': 1000000, 'concurrency': 1000000}, {'layout': {'tp': 8, 'pp': 4}, 'tokens': 1e12},
                {'fabric': 'ib-xdr', 'matmul_dtype': 'fp8', 'schedule': 'zbv'}]
    for i, job in enumerate(jobs):
        write(f'job-{i}.json', json.dumps(job))
        for k, cluster in enumerate(clusters):
            write(f'job-{i}-cluster-{k}.json', json.dumps(job) + '\0' + json.dumps(cluster))
    write('deep-job.json', '{"mode":' * 70 + '1' + '}' * 70)
    write('long-key.json', json.dumps({'k' * 100000: 1}))
    write('duplicate.json', '{"mode":"train","mode":"lora"}')
elif target in ('safetensors', 'gguf'):
    names = {'safetensors': ['tiny-llama.safetensors-header', 'tiny-llama-gptq.safetensors-header',
                             'space-prefix.safetensors-header', 'llama-3-8b.safetensors.index.json'],
             'gguf': ['tiny-llama.gguf-header']}[target]
    for name in names:
        data = fixture(name)
        write(name, data)
        write(name + '.half', data[:len(data) // 2])
    if target == 'safetensors':
        write('length-past-limit', struct.pack('<Q', 8_000_001) + b'{}')
        write('length-huge', struct.pack('<Q', 2 ** 63) + b'{}')
        write('empty-header', struct.pack('<Q', 2) + b'{}')
    else:
        gguf = fixture('tiny-llama.gguf-header')
        write('tensors-past-limit', gguf[:8] + struct.pack('<Q', 2 ** 40) + gguf[16:])
        write('keys-past-limit', gguf[:16] + struct.pack('<Q', 2 ** 40) + gguf[24:])
else:
    sys.exit(f'unknown fuzz target {target}')
