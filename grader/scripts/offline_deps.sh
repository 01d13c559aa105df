# Sourced, on a GPU machine that reaches no package registry, from the kit's root:
#   . grader/scripts/offline_deps.sh
# Installs what grading needs there from Debian packages carried in build/offline-debs/, made
# beforehand on a machine with the network:
#   mkdir -p build/offline-debs && cd build/offline-debs && apt-get download \
#       bubblewrap libselinux1 libpcre2-8-0 libcap2 libboost1.74-dev libboost-context1.74-dev
# bubblewrap (the grader's sandbox) is unpacked into /tmp/labkit-offline and put on the PATH
# through a wrapper that loads its own libraries; Boost.Context (EMU=1) goes to /usr/local, where
# the compiler finds it without flags (and where the build sandbox, which shows /usr, sees it).
# Nothing is installed where the machine already has it.
debs=build/offline-debs
root=/tmp/labkit-offline
if ! command -v bwrap >/dev/null && ls $debs/bubblewrap_*.deb >/dev/null 2>&1; then
    mkdir -p $root/bin
    for deb in $debs/bubblewrap_*.deb $debs/libselinux1_*.deb $debs/libpcre2-8-0_*.deb $debs/libcap2_*.deb; do
        dpkg -x "$deb" $root
    done
    libs=$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu
    printf '#!/bin/sh\nexec /lib64/ld-linux-x86-64.so.2 --library-path %s %s/usr/bin/bwrap "$@"\n' "$libs" $root \
        > $root/bin/bwrap
    chmod +x $root/bin/bwrap
    export PATH=$root/bin:$PATH
fi
# Boost.Context: its library is what an image with Boost's headers often lacks; the headers of
# the same version go with it to /usr/local/include, which the compiler searches first.
if ! ls /usr/lib/x86_64-linux-gnu/libboost_context.* /usr/local/lib/libboost_context.* >/dev/null 2>&1 \
        && ls $debs/libboost1.74-dev_*.deb >/dev/null 2>&1; then
    mkdir -p $root/boost
    for deb in $debs/libboost1.74-dev_*.deb $debs/libboost-context1.74-dev_*.deb; do dpkg -x "$deb" $root/boost; done
    mkdir -p /usr/local/include /usr/local/lib
    cp -r $root/boost/usr/include/boost /usr/local/include/
    # The static library only: nothing to register with the loader.
    cp $root/boost/usr/lib/x86_64-linux-gnu/libboost_context.a /usr/local/lib/
fi
