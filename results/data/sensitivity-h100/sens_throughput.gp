# sens_throughput.gp - throughput, full window (msg/s)
# Written by ringbench; re-run it from this directory: gnuplot sens_throughput.gp
# It writes sens_throughput.png (pngcairo, or png without cairo) and sens_throughput.svg, 1460 x 1300 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1460,1300 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1460,1300 noenhanced
  }
  set output 'sens_throughput.png'
} else {
  set terminal svg size 1460,1300 font "sans,11" noenhanced background rgb 'white'
  set output 'sens_throughput.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set multiplot title 'Throughput (full window) against an INJECTED per-call cost, MODEL dashed - NVIDIA H100 80GB HBM3' font ',14' layout 3,3
set logscale y
set xlabel 'injected cost per call (us)'
set key top left font ',9'
set ylabel 'throughput, full window (msg/s)'
set title 'calls slowed: copies, 8 B' font ',13'
plot 'sens_throughput.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 0 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 1 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 2 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: copies, 4 KiB' font ',13'
plot 'sens_throughput.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 3 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 4 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 5 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: copies, 1 MiB' font ',13'
plot 'sens_throughput.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 6 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 7 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 8 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: all, 8 B' font ',13'
plot 'sens_throughput.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 9 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 10 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 10 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 11 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 11 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: all, 4 KiB' font ',13'
plot 'sens_throughput.dat' index 12 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 12 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 13 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 13 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 14 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 14 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: all, 1 MiB' font ',13'
plot 'sens_throughput.dat' index 15 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 15 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 16 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 16 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 17 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 17 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: queries, 8 B' font ',13'
plot 'sens_throughput.dat' index 18 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 18 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 19 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 19 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 20 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 20 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: queries, 4 KiB' font ',13'
plot 'sens_throughput.dat' index 21 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 21 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 22 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 22 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 23 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 23 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
set title 'calls slowed: queries, 1 MiB' font ',13'
plot 'sens_throughput.dat' index 24 using 1:2:3:4 with yerrorlines lc rgb '#D62728' pt 7 lw 2 title 'malloc/sync/noncoop/device', \
  '' index 24 using 1:5 with lines dt 2 lc rgb '#D62728' lw 1.5 notitle, \
  'sens_throughput.dat' index 25 using 1:2:3:4 with yerrorlines lc rgb '#1F77B4' pt 7 lw 2 title 'pinned/async/coop/mapped', \
  '' index 25 using 1:5 with lines dt 2 lc rgb '#1F77B4' lw 1.5 notitle, \
  'sens_throughput.dat' index 26 using 1:2:3:4 with yerrorlines lc rgb '#2CA02C' pt 7 lw 2 title 'pinned/zerocopy/coop/mapped', \
  '' index 26 using 1:5 with lines dt 2 lc rgb '#2CA02C' lw 1.5 title 'dashed: MODEL, in the path colour'
unset multiplot
set output
}
