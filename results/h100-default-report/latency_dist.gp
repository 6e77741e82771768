# latency_dist.gp - latency percentiles per mode from raw samples at three sizes
# Written by ringbench; re-run it from this directory: gnuplot latency_dist.gp
# It writes latency_dist.png (pngcairo, or png without cairo) and latency_dist.svg, 1800 x 844 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1800,844 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1800,844 noenhanced
  }
  set output 'latency_dist.png'
} else {
  set terminal svg size 1800,844 font "sans,11" noenhanced background rgb 'white'
  set output 'latency_dist.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set multiplot title 'Latency distribution from raw samples - NVIDIA H100 80GB HBM3' . "\n" . 'box: p10-p90, bar: median, whiskers: min to p99.9, triangle: p99, cross: max' font ',14'
unset key
set logscale x 10
set format x '%g'
set xlabel 'round-trip latency (us, log scale)'
set grid xtics mxtics
set origin 0.0000,0.0
set size 0.4633,0.8934
set lmargin at screen 0.20
set rmargin 3
set title 'message size 8 B' font ',13'
set yrange [25.6:-0.6]
set ytics ('pinned/async/coop/managed (native)' 0, 'pinned/async/noncoop/managed' 1, 'pinned/sync/coop/managed' 2, 'pinned/sync/noncoop/managed' 3, 'pinned/zerocopy/coop/managed' 4, 'pinned/zerocopy/noncoop/managed' 5, 'malloc/async/coop/managed' 6, 'malloc/async/noncoop/managed' 7, 'malloc/sync/coop/managed' 8, 'malloc/sync/noncoop/managed' 9, 'pinned/async/coop/device' 10, 'pinned/async/noncoop/device' 11, 'pinned/sync/coop/device' 12, 'pinned/sync/noncoop/device' 13, 'pinned/zerocopy/coop/device' 14, 'pinned/zerocopy/noncoop/device' 15, 'malloc/async/coop/device' 16, 'malloc/async/noncoop/device' 17, 'malloc/sync/coop/device' 18, 'malloc/sync/noncoop/device (WSL2 fallback)' 19, 'pinned/async/coop/mapped (native)' 20, 'pinned/async/noncoop/mapped' 21, 'pinned/sync/coop/mapped' 22, 'pinned/sync/noncoop/mapped' 23, 'pinned/zerocopy/coop/mapped' 24, 'pinned/zerocopy/noncoop/mapped' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
plot 'latency_dist.dat' index 0 using 4:1:2:7:10 with xerrorbars pt -1 lc rgb variable lw 1.5 notitle, \
  '' index 0 using 4:1:3:5:($1-0.3):($1+0.3):10 with boxxyerror fs solid 0.5 lc rgb variable notitle, \
  '' index 0 using 4:1:($1-0.38):($1+0.38) with yerrorbars pt -1 lc rgb 'black' lw 2.5 notitle, \
  '' index 0 using 6:1 with points pt 9 ps 1.0 lc rgb 'black' notitle, \
  '' index 0 using 8:1 with points pt 2 ps 1.0 lc rgb '#CC0000' notitle
unset object
unset arrow
unset label
set origin 0.4633,0.0
set size 0.2633,0.8934
set lmargin 3
set rmargin 3
set title 'message size 4 KiB' font ',13'
set yrange [25.6:-0.6]
set ytics ('' 0, '' 1, '' 2, '' 3, '' 4, '' 5, '' 6, '' 7, '' 8, '' 9, '' 10, '' 11, '' 12, '' 13, '' 14, '' 15, '' 16, '' 17, '' 18, '' 19, '' 20, '' 21, '' 22, '' 23, '' 24, '' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
plot 'latency_dist.dat' index 1 using 4:1:2:7:10 with xerrorbars pt -1 lc rgb variable lw 1.5 notitle, \
  '' index 1 using 4:1:3:5:($1-0.3):($1+0.3):10 with boxxyerror fs solid 0.5 lc rgb variable notitle, \
  '' index 1 using 4:1:($1-0.38):($1+0.38) with yerrorbars pt -1 lc rgb 'black' lw 2.5 notitle, \
  '' index 1 using 6:1 with points pt 9 ps 1.0 lc rgb 'black' notitle, \
  '' index 1 using 8:1 with points pt 2 ps 1.0 lc rgb '#CC0000' notitle
unset object
unset arrow
unset label
set origin 0.7267,0.0
set size 0.2633,0.8934
set lmargin 3
set rmargin 3
set title 'message size 4 MiB' font ',13'
set yrange [25.6:-0.6]
set ytics ('' 0, '' 1, '' 2, '' 3, '' 4, '' 5, '' 6, '' 7, '' 8, '' 9, '' 10, '' 11, '' 12, '' 13, '' 14, '' 15, '' 16, '' 17, '' 18, '' 19, '' 20, '' 21, '' 22, '' 23, '' 24, '' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
plot 'latency_dist.dat' index 2 using 4:1:2:7:10 with xerrorbars pt -1 lc rgb variable lw 1.5 notitle, \
  '' index 2 using 4:1:3:5:($1-0.3):($1+0.3):10 with boxxyerror fs solid 0.5 lc rgb variable notitle, \
  '' index 2 using 4:1:($1-0.38):($1+0.38) with yerrorbars pt -1 lc rgb 'black' lw 2.5 notitle, \
  '' index 2 using 6:1 with points pt 9 ps 1.0 lc rgb 'black' notitle, \
  '' index 2 using 8:1 with points pt 2 ps 1.0 lc rgb '#CC0000' notitle
unset object
unset arrow
unset label
unset multiplot
set output
}
