# Sourced by scripts/keyshelf and scripts/test: installs the Debian packages
# keyshelf builds and tests with, when any is missing.
KEYSHELF_DEBIAN_PACKAGES="libsodium-dev libncursesw5-dev libidn2-dev libcsv-dev liboath-dev libzxcvbn-dev libssl-dev libcurl4-openssl-dev openssl pkg-config tmux git diffutils ncurses-term python3 xvfb xclip gnupg pass libargon2-dev zlib1g-dev zsh fish man-db"

keyshelf_install_deps() {
    local missing=()
    for p in $KEYSHELF_DEBIAN_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "keyshelf: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
