# m0_latency_4MiB.gp - Round trip, 4 MiB
# Written by ringbench; re-run it from this directory: gnuplot m0_latency_4MiB.gp
# It writes m0_latency_4MiB.png (pngcairo, or png without cairo) and m0_latency_4MiB.svg, 1000 x 520 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,520 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1000,520 noenhanced
  }
  set output 'm0_latency_4MiB.png'
} else {
  set terminal svg size 1000,520 font "sans,11" noenhanced background rgb 'white'
  set output 'm0_latency_4MiB.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set xdata time
set timefmt '%Y-%m-%dT%H:%M:%SZ'
set format x '%Y-%m-%d'
set xtics rotate by -30
set key outside right top
set style fill transparent solid 0.2 noborder
set title 'Round trip, 4 MiB'
set ylabel 'p50 (us)'
set logscale y
set arrow 1 from '2026-11-22T17:50:41Z', graph 0 to '2026-11-22T17:50:41Z', graph 1 nohead lc rgb '#C04000' dt 2
set label 1 'commit ccd5a00' at '2026-11-22T17:50:41Z', graph 0.98 rotate by 90 right front font ',8' tc rgb '#C04000'
plot 'm0_latency_4MiB.dat' using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, \
  'm0_latency_4MiB.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 ps 0.6 lw 2 title 'native (mapped)', \
  'm0_latency_4MiB.dat' using 1:6:7 with filledcurves lc rgb '#d62728' notitle, \
  'm0_latency_4MiB.dat' using 1:5 with linespoints lc rgb '#d62728' pt 7 ps 0.6 lw 2 title 'native (managed)', \
  'm0_latency_4MiB.dat' using 1:9:10 with filledcurves lc rgb '#2ca02c' notitle, \
  'm0_latency_4MiB.dat' using 1:8 with linespoints lc rgb '#2ca02c' pt 7 ps 0.6 lw 2 title 'WSL2 fallback'
unset multiplot
set output
}
