"""Plan and apply a fabric from a script, as a pynetbox user would.

    python examples/pynetbox_apply.py http://127.0.0.1:8000 nbt_<key>.<token> ai-lab-fabric [--apply]

Reads the fabric through ``nb.plugins.aifabric.fabrics``, prints the diff of ``POST …/plan/`` and, with --apply,
applies it (``POST …/apply/``) and prints what was created.
"""

import argparse
import sys

import pynetbox


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('url')
    parser.add_argument('token')
    parser.add_argument('fabric', help='fabric slug')
    parser.add_argument('--apply', action='store_true', help='apply the plan (default: only show it)')
    parser.add_argument('--confirm-delete', action='store_true', help='also delete what the plan no longer has')
    args = parser.parse_args(argv)

    nb = pynetbox.api(args.url, token=args.token)
    fabric = nb.plugins.aifabric.fabrics.get(slug=args.fabric)
    if fabric is None:
        print(f'no fabric {args.fabric!r}', file=sys.stderr)
        return 1
    print(f'{fabric.name}: {fabric.design_option.label}, {fabric.spine_count} spines, {fabric.leaf_count} leaves')

    action = 'apply' if args.apply else 'plan'
    response = nb.http_session.post(
        f'{fabric.url}{action}/',
        json={'confirm_delete': args.confirm_delete},
        headers={'Authorization': f'Bearer {args.token}'},
    )
    body = response.json()
    if response.status_code != 200:
        print(f'{action} failed ({response.status_code}): {body}', file=sys.stderr)
        return 2
    for model, counts in body['summary'].items():
        shown = ', '.join(f'{n} {what}' for what, n in counts.items() if n)
        print(f'  {model:24} {shown}')
    print('applied' if body['applied'] else 'nothing written (plan only)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
