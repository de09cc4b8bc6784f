"""Every AI fabric switch's config with Nornir, rendered by NetBox (default) or here (``--local``), written to
``<out>/<switch>.cfg``; ``--compare`` renders both ways and exits 1 when any switch's two renders differ.

    export NETBOX_API=https://netbox.example NETBOX_TOKEN=nbt_<key>.<token>
    python examples/nornir/render_configs.py --out configs            # NetBox renders
    python examples/nornir/render_configs.py --out configs --local    # rendered here, the plugin's filters
    python examples/nornir/render_configs.py --compare                # both, byte for byte

Needs nornir (and, for ``--local``, this plugin's package importable: ``pip install --no-deps netbox-aifabric``
with jinja2, netaddr and PyYAML; no NetBox, no Django). docs/automation.md.
"""

import argparse
import os
import sys
from pathlib import Path

from nornir import InitNornir

sys.path.insert(0, str(Path(__file__).resolve().parent))  # aifabric_nornir, next to this file

from aifabric_nornir import NetBox, render_local, render_netbox  # noqa: E402


def nornir(netbox: NetBox, workers: int):
    options = {'url': netbox.url, 'token': netbox.token, 'verify': netbox.verify}
    return InitNornir(
        runner={'plugin': 'threaded', 'options': {'num_workers': workers}},
        inventory={'plugin': 'AIFabricInventory', 'options': options},
        logging={'enabled': False},  # Nornir's default writes nornir.log into the working directory
    )


def renders(nr, task, netbox: NetBox) -> dict[str, str]:
    """Each host's render; raises with every failed host's error."""
    results = nr.run(task=task, netbox=netbox)
    failed = {name: str(result.exception or result.result) for name, result in results.items() if result.failed}
    if failed:
        raise SystemExit('\n'.join(f'{name}: {error}' for name, error in sorted(failed.items())))
    return {name: result.result for name, result in results.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', type=Path, help='write <out>/<switch>.cfg')
    parser.add_argument('--local', action='store_true', help='render here instead of asking NetBox')
    parser.add_argument('--compare', action='store_true', help='render both ways; exit 1 when any differs')
    parser.add_argument('--workers', type=int, default=4)
    parser.add_argument('--insecure', action='store_true', help='skip TLS verification')
    args = parser.parse_args(argv)
    netbox = NetBox(os.environ['NETBOX_API'], os.environ['NETBOX_TOKEN'], verify=not args.insecure)
    nr = nornir(netbox, args.workers)
    configs = renders(nr, render_local if args.local else render_netbox, netbox)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, content in configs.items():
            (args.out / f'{name}.cfg').write_text(content)
    if not args.compare:
        print(f'{len(configs)} configs rendered by {"this host" if args.local else "NetBox"}')
        return 0
    other = renders(nr, render_netbox if args.local else render_local, netbox)
    differ = sorted(name for name in configs if configs[name] != other[name])
    for name in sorted(configs):
        print(f'{name}: {"differs" if name in differ else "identical"} ({len(configs[name])} characters)')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
