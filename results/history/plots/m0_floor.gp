# m0_floor.gp - Floor: one-word ping-pong through mapped pinned memory
# Written by ringbench; re-run it from this directory: gnuplot m0_floor.gp
# It writes m0_floor.png (pngcairo, or png without cairo) and m0_floor.svg, 1000 x 520 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,520 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1000,520 noenhanced
  }
  set output 'm0_floor.png'
} else {
  set terminal svg size 1000,520 font "sans,11" noenhanced background rgb 'white'
  set output 'm0_floor.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set xdata time
set timefmt '%Y-%m-%dT%H:%M:%SZ'
set format x '%Y-%m-%d'
set xtics rotate by -30
set key outside right top
set style fill transparent solid 0.2 noborder
set title 'Floor: one-word ping-pong through mapped pinned memory'
set ylabel 'p50 (us)'
set arrow 1 from '2026-11-22T17:50:41Z', graph 0 to '2026-11-22T17:50:41Z', graph 1 nohead lc rgb '#C04000' dt 2
set label 1 'commit ccd5a00' at '2026-11-22T17:50:41Z', graph 0.98 rotate by 90 right front font ',8' tc rgb '#C04000'
plot 'm0_floor.dat' using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, \
  'm0_floor.dat' using 1:2 with linespoints lc rgb '#1f77b4' pt 7 ps 0.6 lw 2 title 'floor'
unset multiplot
set output
}
