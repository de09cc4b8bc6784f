"""Read the security of a rendered Arista EOS config or NVIDIA Cumulus NVUE startup.yaml back into the shape of the
``aifabric`` context, so that the matrix proof (:mod:`netbox_aifabric.checks.matrix`) can judge what the switch would
enforce rather than what the context intended.

What is read (and nothing else is trusted): the gateway ACLs with their rules in order, which ACL each SVI binds
inbound and the SVI's VRF, and the management plane: the VRF the services are bound to, the switch's management
address and default route, and which sources the services accept. A service bound without an ACL in some VRF accepts
every source (``0.0.0.0/0``). Anything in an ACL the parser does not understand raises, so a template change cannot
slip past the proof as an unparsed line.
"""

import re

import yaml

__all__ = ('ANY_SOURCE', 'NVUE_MGMT_PORTS', 'eos_readback', 'nvue_readback', 'readback_contexts')

ANY_SOURCE = '0.0.0.0/0'
# the management ports each service listens on, as the NVUE control-plane ACLs must guard them
NVUE_MGMT_PORTS = {'ssh': [('tcp', 22)], 'https': [('tcp', 443), ('tcp', 8765)], 'snmp': [('udp', 161)]}


def _eos_blocks(text):
    """``[(header, [body lines with their indentation])]`` of the top-level EOS lines (comments dropped)."""
    blocks = []
    for line in text.splitlines():
        if not line.strip() or line.strip().startswith('!'):
            continue
        if line.startswith(' '):
            blocks[-1][1].append(line)
        else:
            blocks.append((line, []))
    return blocks


def _eos_sub_blocks(body):
    """``{sub-header: [lines]}`` of the three-space sub-modes in a block body (``   vrf mgmt``)."""
    found, current = {}, None
    for line in body:
        if line.startswith('      '):
            found[current].append(line.strip())
        else:
            current = line.strip()
            found.setdefault(current, [])
    return found


def eos_readback(text: str, services=('ssh', 'https', 'snmp')) -> dict:
    """``{'acls': {name: [rules]}, 'svi_acl': {vid: name}, 'svi_vrf': {vid: vrf}, 'management': {...}, 'served':
    {service: {vrf: standard ACL or None}}}`` of an EOS config rendered by ``templates/eos/eos.cfg.j2`` (or by
    pyavd: the same EOS syntax)."""
    acls, standard, svi_acl, svi_vrf = {}, {}, {}, {}
    ssh, api, snmp = {}, {}, {'default': None}
    mgmt1, routes = {}, {}
    for header, body in _eos_blocks(text):
        words = header.split()
        if header.startswith('ip access-list standard '):
            entries = standard.setdefault(words[3], [])
            for line in body:  # `permit <source>`, or with a sequence number as pyavd writes it
                action, source = line.split()[-2:]
                entries.append((action, ANY_SOURCE if source == 'any' else source))
        elif header.startswith('ip access-list '):
            rules = acls.setdefault(words[2], [])
            for line in body:
                match = re.fullmatch(r'   (\d+) (permit|deny) ip (\S+) (\S+)', line)
                if match is None:
                    raise ValueError(f'unparsed line in ACL {words[2]}: {line!r}')
                seq, action, source, destination = match.groups()
                rules.append({'seq': int(seq), 'action': action, 'source': source, 'destination': destination})
        elif re.fullmatch(r'interface Vlan\d+', header):
            vid = int(header.removeprefix('interface Vlan'))
            svi_vrf[vid] = None
            for line in body:
                if line.startswith('   vrf '):
                    svi_vrf[vid] = line.split()[1]
                elif m := re.fullmatch(r'   ip access-group (\S+) in', line):
                    svi_acl[vid] = m.group(1)
        elif header == 'interface Management1':
            for line in body:
                if line.startswith(('   vrf ', '   ip address ')):
                    mgmt1[line.split()[-2]] = line.split()[-1]
        elif header == 'management ssh':
            ssh.setdefault('default', None)  # EOS serves SSH in the default VRF unless shut down
            for line in body:
                if m := re.fullmatch(r'   ip access-group (\S+)(?: vrf (\S+))? in', line):
                    ssh[m.group(2) or 'default'] = m.group(1)
                elif line == '   shutdown':
                    ssh.pop('default')
            for sub, lines in _eos_sub_blocks(body).items():
                if sub.startswith('vrf ') and 'no shutdown' in lines:
                    ssh.setdefault(sub.split()[1], None)
        elif header == 'management api http-commands':
            if '   no shutdown' in body:  # the API's own `no shutdown` serves the default VRF, with no ACL of its own
                api['default'] = None
            for sub, lines in _eos_sub_blocks(body).items():  # and each VRF enabled under it (`vrf default` too)
                if sub.startswith('vrf ') and 'no shutdown' in lines:
                    acl = next((line.split()[-1] for line in lines if line.startswith('ip access-group ')), None)
                    api[sub.split()[1]] = acl
        elif m := re.fullmatch(r'snmp-server vrf (\S+)', header):
            snmp.setdefault(m.group(1), None)
        elif m := re.fullmatch(r'snmp-server ipv4 access-list (\S+)(?: vrf (\S+))?', header):
            snmp[m.group(2) or 'default'] = m.group(1)
        elif m := re.fullmatch(r'ip route vrf (\S+) 0\.0\.0\.0/0 (\S+)', header):
            routes[m.group(1)] = m.group(2)
    served = {'ssh': ssh, 'https': api, 'snmp': snmp}
    sources = set()
    for service in services:
        for acl in served[service].values():
            if acl is None:
                sources.add(ANY_SOURCE)
            else:
                sources |= {source for action, source in standard.get(acl, ()) if action == 'permit'}
    vrf = mgmt1.get('vrf')
    bound = vrf is not None and all(vrf in served[service] for service in services)
    management = {
        'vrf': vrf if bound else None,
        'address': mgmt1.get('address'),
        'gateway': routes.get(vrf),
        'allowed_sources': sorted(sources),
    }
    served = {service: dict(served[service]) for service in services}
    return {'acls': acls, 'svi_acl': svi_acl, 'svi_vrf': svi_vrf, 'management': management, 'served': served}


def _nvue_rules(acl):
    rules = []
    for rule_id, rule in sorted((acl.get('rule') or {}).items(), key=lambda item: int(item[0])):
        ip = (rule.get('match') or {}).get('ip') or {}
        action = next(iter(rule.get('action') or {}), None)
        rules.append(
            {
                'seq': int(rule_id),
                'action': action,
                'source': 'any' if str(ip.get('source-ip', 'ANY')).upper() == 'ANY' else ip['source-ip'],
                'destination': 'any' if str(ip.get('dest-ip', 'ANY')).upper() == 'ANY' else ip['dest-ip'],
                'protocol': ip.get('protocol'),
                'ports': {int(p) for p in ((ip.get(ip.get('protocol') or '') or {}).get('dest-port') or {})},
                'other': sorted(set(ip) - {'source-ip', 'dest-ip', 'protocol', 'tcp', 'udp'}),
            }
        )
    return rules


def _nvue_port_sources(control_plane_acls, protocol, port):
    """The sources the control-plane ACLs let reach ``protocol``/``port``: each ACL's permits before its deny of the
    port from any source; a port no ACL denies from any source stays open (the default whitelist permits it)."""
    sources, closed = set(), False
    for rules in control_plane_acls:
        for rule in rules:
            if rule['protocol'] != protocol or port not in rule['ports'] or rule['destination'] != 'any':
                continue
            if rule['action'] == 'permit':
                sources.add(ANY_SOURCE if rule['source'] == 'any' else rule['source'])
            elif rule['action'] == 'deny' and rule['source'] == 'any':
                closed = True
                break
    return sources if closed else sources | {ANY_SOURCE}


def nvue_readback(text: str, services=('ssh', 'https', 'snmp')) -> dict:
    """The same as :func:`eos_readback` for an NVUE startup.yaml rendered by ``templates/cumulus/startup.yaml.j2``."""
    (document,) = yaml.load(text, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))  # libyaml: same rules
    config = document['set']
    acls = {name: _nvue_rules(acl) for name, acl in (config.get('acl') or {}).items()}
    svi_acl, svi_vrf = {}, {}
    for name, iface in config['interface'].items():
        if iface.get('type') != 'svi':
            continue
        vid = int(iface['vlan'])
        svi_vrf[vid] = (iface.get('ip') or {}).get('vrf')
        inbound = [acl for acl, binding in (iface.get('acl') or {}).items() if 'inbound' in binding]
        if inbound:
            (svi_acl[vid],) = inbound
    system = config['system']
    bound = [
        acls[name]
        for name, binding in ((system.get('control-plane') or {}).get('acl') or {}).items()
        if 'inbound' in binding and not name.startswith('acl-default-')
    ]
    sources = set()
    for service in services:
        for protocol, port in NVUE_MGMT_PORTS[service]:
            sources |= _nvue_port_sources(bound, protocol, port)
    eth0 = config['interface'].get('eth0', {}).get('ip') or {}
    vrf = eth0.get('vrf')
    listening = {
        'ssh': (system.get('ssh-server') or {}).get('vrf'),
        # the NVUE API has no VRF of its own: it is bound by the control-plane ACL only
        'https': vrf,
        'snmp': {v.get('vrf') for v in ((system.get('snmp-server') or {}).get('listening-address') or {}).values()},
    }
    bound_to_vrf = vrf is not None and all(
        vrf == where or (isinstance(where, set) and where == {vrf}) for where in map(listening.get, services)
    )
    addresses = [a for a in eth0.get('address') or {} if a != 'dhcp']
    management = {
        'vrf': vrf if bound_to_vrf else None,
        'address': addresses[0] if addresses else None,
        'gateway': next(iter(eth0.get('gateway') or {}), None),
        'allowed_sources': sorted(sources),
    }
    # gateway ACLs: rules that match addresses only (the management and CNP ACLs match ports or DSCP)
    gateway_acls = {
        name: [{k: r[k] for k in ('seq', 'action', 'source', 'destination')} for r in rules]
        for name, rules in acls.items()
        if all(r['protocol'] is None and not r['ports'] and not r['other'] for r in rules)
    }
    return {'acls': gateway_acls, 'svi_acl': svi_acl, 'svi_vrf': svi_vrf, 'management': management}


def readback_contexts(contexts: dict, readbacks: dict) -> dict:
    """``contexts`` (copied by the caller) with each switch's ``security.acls``, ``vlans[].acl``, the VRF of each
    gateway VLAN and ``management`` REPLACED by what ``readbacks[switch]`` read from its rendered config. The
    jump-host subnets stay the intent's: they are what the read-back sources are judged against."""
    for name, read in readbacks.items():
        ctx = contexts[name]
        ctx['security']['acls'] = [{'name': acl, 'rules': rules} for acl, rules in read['acls'].items()]
        for vlan in ctx['vlans']:
            vlan['acl'] = read['svi_acl'].get(vlan['vid'])
            if vlan['gateway']:
                vlan['vrf'] = read['svi_vrf'][vlan['vid']]
        ctx['management'] = {**read['management'], 'jump_hosts': ctx['management']['jump_hosts']}
    return contexts
