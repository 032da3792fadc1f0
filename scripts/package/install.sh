#!/bin/sh
# Installs Tophhie Watch from this unpacked archive.
#
#   sudo ./install.sh           system-wide: /usr/local/bin, /usr/local/share/tophhie-watch/rules,
#                               the man page and completions, the systemd units, /etc/tophhie-watch,
#                               a 'tophhie-watch' system user and its /var/lib/tophhie-watch (0700)
#   ./install.sh --user         for yourself, no root: ~/.local/bin, ~/.local/share, the user unit,
#                               ~/.config/tophhie-watch/config.yml
#   DESTDIR=/stage ./install.sh stage the system-wide layout under /stage (packaging, CI); no user
#                               is created and nothing outside /stage is touched
#   PREFIX=/opt/tophhie ./install.sh   another prefix (default /usr/local)
#
# An existing config file is never overwritten. It ends by printing the next two commands.
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
MODE=system
if [ "${1:-}" = "--user" ]; then MODE=user; elif [ -n "${1:-}" ]; then
    echo "usage: $0 [--user]   (or DESTDIR=… $0)" >&2; exit 2
fi
DESTDIR="${DESTDIR:-}"

if [ "$MODE" = user ]; then
    PREFIX="${PREFIX:-$HOME/.local}"
    CONFIG_DIR="${XDG_CONFIG_HOME:-$HOME/.config}/tophhie-watch"
    UNIT_DIR="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
    STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/tophhie-watch"
else
    PREFIX="${PREFIX:-/usr/local}"
    CONFIG_DIR=/etc/tophhie-watch
    UNIT_DIR=/etc/systemd/system
    STATE_DIR=/var/lib/tophhie-watch
    if [ -z "$DESTDIR" ] && [ "$(id -u)" -ne 0 ]; then
        echo "install.sh: a system-wide install needs root; run it with sudo, or use --user" >&2
        exit 2
    fi
fi
RULES_DIR="$PREFIX/share/tophhie-watch/rules"

put() { # put MODE SOURCE TARGET
    mkdir -p "$DESTDIR$(dirname "$3")"
    cp "$2" "$DESTDIR$3"
    chmod "$1" "$DESTDIR$3"
}

put 0755 "$HERE/bin/tophhie-watch" "$PREFIX/bin/tophhie-watch"
rm -rf "$DESTDIR$RULES_DIR"
mkdir -p "$DESTDIR$RULES_DIR"
cp -R "$HERE/share/tophhie-watch/rules/." "$DESTDIR$RULES_DIR/"
find "$DESTDIR$RULES_DIR" -type f -exec chmod 0644 {} +
put 0644 "$HERE/share/man/man1/tophhie-watch.1" "$PREFIX/share/man/man1/tophhie-watch.1"
put 0644 "$HERE/share/bash-completion/completions/tophhie-watch" "$PREFIX/share/bash-completion/completions/tophhie-watch"
put 0644 "$HERE/share/zsh/site-functions/_tophhie-watch" "$PREFIX/share/zsh/site-functions/_tophhie-watch"
put 0644 "$HERE/share/fish/vendor_completions.d/tophhie-watch.fish" "$PREFIX/share/fish/vendor_completions.d/tophhie-watch.fish"

# The config: the documented example with this install's paths, only if there is none yet.
mkdir -p "$DESTDIR$CONFIG_DIR"
if [ ! -e "$DESTDIR$CONFIG_DIR/config.yml" ]; then
    sed -e "s|^state_dir: .*|state_dir: $STATE_DIR|" -e "s|^  - /usr/local/share/tophhie-watch/rules|  - $RULES_DIR|" \
        "$HERE/etc/config.yml.example" > "$DESTDIR$CONFIG_DIR/config.yml"
    chmod 0640 "$DESTDIR$CONFIG_DIR/config.yml"
    CONFIG_NEW=yes
else
    CONFIG_NEW=no
fi

if [ "$MODE" = user ]; then
    mkdir -p "$DESTDIR$UNIT_DIR"
    sed -e "s|%h/.local/bin/tophhie-watch|$PREFIX/bin/tophhie-watch|" -e "s|%h/.config/tophhie-watch/config.yml|$CONFIG_DIR/config.yml|" \
        "$HERE/lib/systemd/user/tophhie-watch.service" > "$DESTDIR$UNIT_DIR/tophhie-watch.service"
    mkdir -p "$DESTDIR$STATE_DIR" && chmod 0700 "$DESTDIR$STATE_DIR"
else
    mkdir -p "$DESTDIR$UNIT_DIR"
    for unit in tophhie-watch.service tophhie-watch-poll.service tophhie-watch-poll.timer; do
        sed -e "s|/usr/local/bin/tophhie-watch|$PREFIX/bin/tophhie-watch|" "$HERE/lib/systemd/system/$unit" > "$DESTDIR$UNIT_DIR/$unit"
        chmod 0644 "$DESTDIR$UNIT_DIR/$unit"
    done
    # The state directory exists before the unit first starts, so 'login' can write to it.
    mkdir -p "$DESTDIR$STATE_DIR"
    chmod 0700 "$DESTDIR$STATE_DIR"
    if [ -z "$DESTDIR" ]; then
        if ! id tophhie-watch >/dev/null 2>&1; then
            useradd --system --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin tophhie-watch
        fi
        chown tophhie-watch:tophhie-watch "$STATE_DIR"
        chgrp tophhie-watch "$CONFIG_DIR/config.yml"
        command -v systemctl >/dev/null 2>&1 && systemctl daemon-reload 2>/dev/null || true
    fi
fi

echo "installed tophhie-watch $("$DESTDIR$PREFIX/bin/tophhie-watch" --version | cut -d' ' -f2) to ${DESTDIR}$PREFIX (rules in $RULES_DIR)"
[ "$CONFIG_NEW" = yes ] && echo "wrote $CONFIG_DIR/config.yml: set tenant and client_id in it first (alerts go to standard output, the journal, until you enable another notifier there)"
# What is still missing, in the program's own words (nothing is sent anywhere: doctor stops at
# the first gate that fails, and a fresh install has nobody signed in).
if [ -z "$DESTDIR" ]; then
    echo "checking the install (tophhie-watch doctor):"
    "$PREFIX/bin/tophhie-watch" doctor --config "$CONFIG_DIR/config.yml" --state-dir "$STATE_DIR" 2>&1 | sed 's/^/  /' || true
fi
echo "next:"
if [ "$MODE" = user ]; then
    echo "  $PREFIX/bin/tophhie-watch login --config $CONFIG_DIR/config.yml"
    echo "  systemctl --user enable --now tophhie-watch"
else
    echo "  sudo -u tophhie-watch $PREFIX/bin/tophhie-watch login --config $CONFIG_DIR/config.yml"
    echo "  sudo systemctl enable --now tophhie-watch"
fi
