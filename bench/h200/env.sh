# Sourced by the bench/h200 scripts on the GPU machine. Binaries built here need some shared
# libraries that machine may lack (cairo and its X11 dependencies, libcjson, libmicrohttpd...);
# bench/h200/collect-libs.sh copied them to .device/lib. Putting all of .device/lib on
# LD_LIBRARY_PATH would also hand this machine's libstdc++ or zlib to the wrapped PyTorch jobs,
# so only the libraries that are really missing there are exposed, from /tmp/gwlib.
GWLIB=/tmp/gwlib
mkdir -p "$GWLIB"
# cairo (plot) and libmicrohttpd (serve, run --listen) are dlopen()ed, so ldd of gpuwatch does not
# name them: they and what they need are looked up here (.device/before: an older build to compare).
for _l in libcairo.so.2 libfontconfig.so.1 libmicrohttpd.so.12; do
  ldconfig -p | grep -q "$_l" || { [ -f ".device/lib/$_l" ] && cp ".device/lib/$_l" "$GWLIB/"; }
done
for _i in 1 2 3 4 5; do
  _missing=$(LD_LIBRARY_PATH="$GWLIB" ldd build/gpuwatch build/bench_tick .device/before/gpuwatch \
             "$GWLIB"/libcairo.so.2 "$GWLIB"/libmicrohttpd.so.12 2>/dev/null \
             | awk '/not found/{print $1}' | sort -u)
  [ -z "$_missing" ] && break
  for _l in $_missing; do
    [ -f ".device/lib/$_l" ] && cp ".device/lib/$_l" "$GWLIB/"
  done
done
cp .device/lib/libasan.so.8 .device/lib/libubsan.so.1 "$GWLIB/" 2>/dev/null || true
export LD_LIBRARY_PATH="$GWLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset _i _l _missing
