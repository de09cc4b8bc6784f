"""The fabric sizes the benchmarks apply to NetBox: the shapes of examples/size-m.yaml and examples/size-l.yaml as
Fabric field values (one copy, read by bench_apply.py and bench_render.py; the guide's own cluster is
netbox_aifabric.planner.guide.GUIDE_SIZES)."""

SIZE_M = {
    'spine_count': 4,
    'max_spines': 4,
    'leaf_count': 16,
    'max_leaves': 16,
    'uplinks_per_spine': 1,
    'max_parallel_uplinks': 1,
    'server_count': 128,
    'storage_count': 0,
}
SIZE_L = {  # 17,066 objects created; 18,242 plan items with the devices' values and the shared objects used
    'spine_count': 8,
    'max_spines': 8,
    'leaf_count': 64,
    'max_leaves': 64,
    'uplinks_per_spine': 1,
    'max_parallel_uplinks': 1,
    'server_count': 1024,
    'storage_count': 0,
}
