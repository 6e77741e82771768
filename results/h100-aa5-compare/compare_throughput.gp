# compare_throughput.gp - overhead of OTHER over BASE per mode and size
# Written by ringbench; re-run it from this directory: gnuplot compare_throughput.gp
# It writes compare_throughput.png (pngcairo, or png without cairo) and compare_throughput.svg, 1800 x 820 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1800,820 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1800,820 noenhanced
  }
  set output 'compare_throughput.png'
} else {
  set terminal svg size 1800,820 font "sans,11" noenhanced background rgb 'white'
  set output 'compare_throughput.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set multiplot title 'throughput: overhead of OTHER over BASE per mode and size' . "\n" . 'throughput overhead on time per byte (1/GB/s); green band: the claimed 10-30%' font ',15'
unset key
set logscale x 2
set xtics ('8 B' 8, '16 B' 16, '64 B' 64, '256 B' 256, '1 KiB' 1024, '4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304) rotate by 30 right
set mxtics default
set xlabel 'message size (payload bytes, log scale)'
set ylabel 'overhead of OTHER over BASE (%, + = OTHER slower)'
unset logscale y
set object 1 rect from graph 0, first 10 to graph 1, first 30 fc rgb '#CDE8CD' fs solid 0.6 noborder behind
set label 1 'claimed 10-30%' at graph 0.02, first 20 left font ',9' tc rgb '#2E7D32' front
set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lc rgb '#000000' lw 1 back
set yrange [-46.1904:58.8408]
set origin 0.0000,0.2000
set size 0.3333,0.7000
set title 'control block: managed' font ',13'
plot \
  'compare_throughput.dat' using 1:2 with lines lc rgb '#40F0B000' lw 12 notitle, \
  'compare_throughput.dat' using 1:2 with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/async/coop/managed', \
  'compare_throughput.dat' using 1:5 with linespoints lc rgb '#0072B2' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/async/noncoop/managed', \
  'compare_throughput.dat' using 1:8 with linespoints lc rgb '#E69F00' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/sync/coop/managed', \
  'compare_throughput.dat' using 1:11 with linespoints lc rgb '#E69F00' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/sync/noncoop/managed', \
  'compare_throughput.dat' using 1:14 with linespoints lc rgb '#009E73' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/zerocopy/coop/managed', \
  'compare_throughput.dat' using 1:17 with linespoints lc rgb '#009E73' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/zerocopy/noncoop/managed', \
  'compare_throughput.dat' using 1:20 with linespoints lc rgb '#0072B2' dt 1 pt 4 ps 1.1 lw 2 title 'malloc/async/coop/managed', \
  'compare_throughput.dat' using 1:23 with linespoints lc rgb '#0072B2' dt (10,6) pt 4 ps 1.1 lw 2 title 'malloc/async/noncoop/managed', \
  'compare_throughput.dat' using 1:26 with linespoints lc rgb '#E69F00' dt 1 pt 4 ps 1.1 lw 2 title 'malloc/sync/coop/managed', \
  'compare_throughput.dat' using 1:29 with linespoints lc rgb '#E69F00' dt (10,6) pt 4 ps 1.1 lw 2 title 'malloc/sync/noncoop/managed'
set origin 0.3333,0.2000
set size 0.3333,0.7000
set title 'control block: device' font ',13'
plot \
  'compare_throughput.dat' using 1:30 with lines lc rgb '#60E000E0' lw 12 notitle, \
  'compare_throughput.dat' using 1:3 with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/async/coop/device', \
  'compare_throughput.dat' using 1:6 with linespoints lc rgb '#0072B2' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/async/noncoop/device', \
  'compare_throughput.dat' using 1:9 with linespoints lc rgb '#E69F00' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/sync/coop/device', \
  'compare_throughput.dat' using 1:12 with linespoints lc rgb '#E69F00' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/sync/noncoop/device', \
  'compare_throughput.dat' using 1:15 with linespoints lc rgb '#009E73' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/zerocopy/coop/device', \
  'compare_throughput.dat' using 1:18 with linespoints lc rgb '#009E73' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/zerocopy/noncoop/device', \
  'compare_throughput.dat' using 1:21 with linespoints lc rgb '#0072B2' dt 1 pt 4 ps 1.1 lw 2 title 'malloc/async/coop/device', \
  'compare_throughput.dat' using 1:24 with linespoints lc rgb '#0072B2' dt (10,6) pt 4 ps 1.1 lw 2 title 'malloc/async/noncoop/device', \
  'compare_throughput.dat' using 1:27 with linespoints lc rgb '#E69F00' dt 1 pt 4 ps 1.1 lw 2 title 'malloc/sync/coop/device', \
  'compare_throughput.dat' using 1:30 with linespoints lc rgb '#E69F00' dt (10,6) pt 4 ps 1.1 lw 2 title 'malloc/sync/noncoop/device'
set origin 0.6667,0.2000
set size 0.3333,0.7000
set title 'control block: mapped' font ',13'
plot \
  'compare_throughput.dat' using 1:4 with lines lc rgb '#40F0B000' lw 12 notitle, \
  'compare_throughput.dat' using 1:4 with linespoints lc rgb '#0072B2' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/async/coop/mapped', \
  'compare_throughput.dat' using 1:7 with linespoints lc rgb '#0072B2' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/async/noncoop/mapped', \
  'compare_throughput.dat' using 1:10 with linespoints lc rgb '#E69F00' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/sync/coop/mapped', \
  'compare_throughput.dat' using 1:13 with linespoints lc rgb '#E69F00' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/sync/noncoop/mapped', \
  'compare_throughput.dat' using 1:16 with linespoints lc rgb '#009E73' dt 1 pt 7 ps 1.1 lw 2 title 'pinned/zerocopy/coop/mapped', \
  'compare_throughput.dat' using 1:19 with linespoints lc rgb '#009E73' dt (10,6) pt 7 ps 1.1 lw 2 title 'pinned/zerocopy/noncoop/mapped'
set origin 0,0
set size 1,0.200
unset border
unset tics
unset grid
unset xlabel
unset ylabel
unset title
unset logscale
unset object
unset arrow
unset label
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxcols 4 Left reverse width 2 samplen 4 spacing 1.25 font ',11'
plot 2 notitle, \
  keyentry with lines lc rgb '#0072B2' lw 3 title 'xfer async', \
  keyentry with lines lc rgb '#E69F00' lw 3 title 'xfer sync', \
  keyentry with lines lc rgb '#009E73' lw 3 title 'xfer zerocopy', \
  keyentry with lines lc rgb 'black' dt 1 lw 2 title 'launch coop', \
  keyentry with lines lc rgb 'black' dt (10,6) lw 2 title 'launch noncoop', \
  keyentry with points lc rgb 'black' pt 7 ps 1.5 title 'host pinned', \
  keyentry with points lc rgb 'black' pt 4 ps 1.5 title 'host malloc', \
  keyentry with lines lc rgb '#40F0B000' lw 10 title 'native path (pinned/async/coop/mapped|managed)', \
  keyentry with lines lc rgb '#60E000E0' lw 10 title 'WSL2 fallback path (malloc/sync/noncoop/device)'
unset multiplot
set output
}
