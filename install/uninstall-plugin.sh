#!/usr/bin/env bash
# Removes what install-plugin.sh installed (same options).
# Usage: install/uninstall-plugin.sh [--system]
set -euo pipefail
source "$(dirname "$0")/plugin-folder.sh"
if [ -e "$folder/edgewise" ]; then
  $sudo rm -f "$folder/edgewise"
  $sudo rmdir "$folder" 2>/dev/null || true  # keeps anything else put there
  echo "removed $folder/edgewise"
else
  echo "nothing to remove at $folder/edgewise"
fi
