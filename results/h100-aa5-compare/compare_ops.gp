# compare_ops.gp - control-block and lifecycle overhead of OTHER over BASE per mode
# Written by ringbench; re-run it from this directory: gnuplot compare_ops.gp
# It writes compare_ops.png (pngcairo, or png without cairo) and compare_ops.svg, 1800 x 884 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1800,884 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1800,884 noenhanced
  }
  set output 'compare_ops.png'
} else {
  set terminal svg size 1800,884 font "sans,11" noenhanced background rgb 'white'
  set output 'compare_ops.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set multiplot title 'Control-block and lifecycle operations: overhead of OTHER over BASE' . "\n" . 'point = overhead, bar = 95% bootstrap CI; green band = the claimed 10-30%' font ',14'
set xlabel 'overhead (%, + = OTHER slower)'
set grid xtics
set xrange [*<-5:35<*]
set origin 0,0
set size 0.6,0.9095
set lmargin at screen 0.19
set rmargin 2
set title 'control-block operations' font ',13'
set yrange [25.6:-0.6]
set ytics ('pinned/async/coop/managed (native)' 0, 'pinned/async/noncoop/managed' 1, 'pinned/sync/coop/managed' 2, 'pinned/sync/noncoop/managed' 3, 'pinned/zerocopy/coop/managed' 4, 'pinned/zerocopy/noncoop/managed' 5, 'malloc/async/coop/managed' 6, 'malloc/async/noncoop/managed' 7, 'malloc/sync/coop/managed' 8, 'malloc/sync/noncoop/managed' 9, 'pinned/async/coop/device' 10, 'pinned/async/noncoop/device' 11, 'pinned/sync/coop/device' 12, 'pinned/sync/noncoop/device' 13, 'pinned/zerocopy/coop/device' 14, 'pinned/zerocopy/noncoop/device' 15, 'malloc/async/coop/device' 16, 'malloc/async/noncoop/device' 17, 'malloc/sync/coop/device' 18, 'malloc/sync/noncoop/device (WSL2 fallback)' 19, 'pinned/async/coop/mapped (native)' 20, 'pinned/async/noncoop/mapped' 21, 'pinned/sync/coop/mapped' 22, 'pinned/sync/noncoop/mapped' 23, 'pinned/zerocopy/coop/mapped' 24, 'pinned/zerocopy/noncoop/mapped' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
set object 1 rect from first 10, graph 0 to first 30, graph 1 fc rgb '#CDE8CD' fs solid 0.6 noborder behind
set arrow 1 from first 0, graph 0 to first 0, graph 1 nohead lc rgb 'black' back
set key outside below horizontal maxrows 1 samplen 2 font ',11'
plot 'compare_ops.dat' index 0 using 2:1:3:4 with xerrorbars lc rgb '#000000' pt 7 ps 1.2 lw 1.5 title 'cb_read', \
  'compare_ops.dat' index 1 using 2:1:3:4 with xerrorbars lc rgb '#7B3294' pt 5 ps 1.2 lw 1.5 title 'cb_write', \
  'compare_ops.dat' index 2 using 2:1:3:4 with xerrorbars lc rgb '#A6611A' pt 9 ps 1.2 lw 1.5 title 'cb_handshake'
unset object
unset arrow
unset label
set origin 0.6,0
set size 0.4,0.9095
set lmargin 2
set rmargin 2
set title 'kernel lifecycle' font ',13'
set yrange [25.6:-0.6]
set ytics ('' 0, '' 1, '' 2, '' 3, '' 4, '' 5, '' 6, '' 7, '' 8, '' 9, '' 10, '' 11, '' 12, '' 13, '' 14, '' 15, '' 16, '' 17, '' 18, '' 19, '' 20, '' 21, '' 22, '' 23, '' 24, '' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
set object 1 rect from first 10, graph 0 to first 30, graph 1 fc rgb '#CDE8CD' fs solid 0.6 noborder behind
set arrow 1 from first 0, graph 0 to first 0, graph 1 nohead lc rgb 'black' back
set key outside below horizontal maxrows 1 samplen 2 font ',11'
plot 'compare_ops.dat' index 3 using 2:1:3:4 with xerrorbars lc rgb '#000000' pt 7 ps 1.2 lw 1.5 title 'lc_launch', \
  'compare_ops.dat' index 4 using 2:1:3:4 with xerrorbars lc rgb '#7B3294' pt 5 ps 1.2 lw 1.5 title 'lc_activate', \
  'compare_ops.dat' index 5 using 2:1:3:4 with xerrorbars lc rgb '#A6611A' pt 9 ps 1.2 lw 1.5 title 'lc_deactivate', \
  'compare_ops.dat' index 6 using 2:1:3:4 with xerrorbars lc rgb '#008837' pt 13 ps 1.2 lw 1.5 title 'lc_terminate'
unset object
unset arrow
unset label
unset multiplot
set output
}
