"""KiCad netlist (.net, the S-expression format "E" that pcbnew and eeschema read) of a board."""


def _q(s):
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"')


def render(board, source="hardware/board.json"):
    out = ['(export (version "E")']
    out.append(
        '  (design (source %s) (tool %s) (sheet (number "1") (name "/") (title_block (title %s))))'
        % (_q(source), _q("tools/hardware"), _q(board.title))
    )
    out.append("  (components")
    for p in board.parts:
        role = " ".join(str(x) for x in p.role) if p.role else ""
        out.append(
            '    (comp (ref %s) (value %s) (footprint %s) (property (name "role") (value %s)))'
            % (_q(p.ref), _q(p.value), _q("smartgammon:" + p.footprint if p.footprint else ""), _q(role))
        )
    out.append("  )")
    out.append("  (nets")
    for code, (net, pins) in enumerate(sorted(board.nets().items())):
        out.append('    (net (code "%d") (name %s)' % (code + 1, _q("/" + net)))
        for ref, num, name, type_ in sorted(pins, key=lambda p: (p[0], p[1])):
            kt = {"in": "input", "out": "output", "pwr_in": "power_in", "pwr_out": "power_out"}.get(
                type_, "passive"
            )
            out.append(
                "      (node (ref %s) (pin %s) (pinfunction %s) (pintype %s))"
                % (_q(ref), _q(num), _q(name), _q(kt))
            )
        out.append("    )")
    out.append("  )")
    out.append(")")
    return "\n".join(out) + "\n"


def parse(text):
    """The nets of a .net file: {net name: [(ref, pin, function, type)]} and {ref: role}."""
    import re

    nets, roles, net = {}, {}, None
    for line in text.splitlines():
        m = re.search(r'\(comp \(ref "([^"]*)"\).*\(name "role"\) \(value "([^"]*)"\)', line)
        if m:
            roles[m.group(1)] = m.group(2)
        m = re.search(r'\(net \(code "\d+"\) \(name "/([^"]*)"\)', line)
        if m:
            net = nets.setdefault(m.group(1), [])
        m = re.search(
            r'\(node \(ref "([^"]*)"\) \(pin "([^"]*)"\) \(pinfunction "([^"]*)"\) \(pintype "([^"]*)"\)',
            line,
        )
        if m:
            net.append(m.groups())
    return nets, roles
