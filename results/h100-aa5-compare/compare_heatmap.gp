# compare_heatmap.gp - overhead of OTHER over BASE, every mode x size
# Written by ringbench; re-run it from this directory: gnuplot compare_heatmap.gp
# It writes compare_heatmap.png (pngcairo, or png without cairo) and compare_heatmap.svg, 1800 x 864 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1800,864 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1800,864 noenhanced
  }
  set output 'compare_heatmap.png'
} else {
  set terminal svg size 1800,864 font "sans,11" noenhanced background rgb 'white'
  set output 'compare_heatmap.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set multiplot title 'Overhead of OTHER over BASE (%) per mode and size' . "\n" . 'red = OTHER slower, blue = OTHER faster; ~0 = same within noise (95% CI includes 0 or under --min-effect); - = not paired' font ',14'
unset key
set cbrange [-54.0667:54.0667]
set palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')
set cblabel 'overhead (%)'
set grid noxtics noytics
set xlabel 'message size'
set origin 0.000,0
set size 0.560,0.9074
set lmargin at screen 0.19
set rmargin 1
unset colorbox
set yrange [25.6:-0.6]
set ytics ('pinned/async/coop/managed (native)' 0, 'pinned/async/noncoop/managed' 1, 'pinned/sync/coop/managed' 2, 'pinned/sync/noncoop/managed' 3, 'pinned/zerocopy/coop/managed' 4, 'pinned/zerocopy/noncoop/managed' 5, 'malloc/async/coop/managed' 6, 'malloc/async/noncoop/managed' 7, 'malloc/sync/coop/managed' 8, 'malloc/sync/noncoop/managed' 9, 'pinned/async/coop/device' 10, 'pinned/async/noncoop/device' 11, 'pinned/sync/coop/device' 12, 'pinned/sync/noncoop/device' 13, 'pinned/zerocopy/coop/device' 14, 'pinned/zerocopy/noncoop/device' 15, 'malloc/async/coop/device' 16, 'malloc/async/noncoop/device' 17, 'malloc/sync/coop/device' 18, 'malloc/sync/noncoop/device (WSL2 fallback)' 19, 'pinned/async/coop/mapped (native)' 20, 'pinned/async/noncoop/mapped' 21, 'pinned/sync/coop/mapped' 22, 'pinned/sync/noncoop/mapped' 23, 'pinned/zerocopy/coop/mapped' 24, 'pinned/zerocopy/noncoop/mapped' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
unset object
unset label
set xtics ('8 B' 0, '16 B' 1, '64 B' 2, '256 B' 3, '1 KiB' 4, '4 KiB' 5, '16 KiB' 6, '64 KiB' 7, '256 KiB' 8, '1 MiB' 9, '4 MiB' 10) rotate by 30 right
set xrange [-0.5:10.5]
set title 'latency' font ',13'
plot 'compare_heatmap.dat' index 0 using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror fs solid 1.0 noborder lc palette notitle, \
  '' index 0 using 1:2:4 with labels font ',8' notitle
unset arrow
set origin 0.560,0
set size 0.440,0.9074
set lmargin 2
set rmargin 12
set colorbox
set yrange [25.6:-0.6]
set ytics ('' 0, '' 1, '' 2, '' 3, '' 4, '' 5, '' 6, '' 7, '' 8, '' 9, '' 10, '' 11, '' 12, '' 13, '' 14, '' 15, '' 16, '' 17, '' 18, '' 19, '' 20, '' 21, '' 22, '' 23, '' 24, '' 25) nomirror font ',10'
set grid noytics
set object 100 rect from graph 0, first -1.5 to graph 1, first 0.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 9.5 to graph 1, first 9.5 nohead lc rgb '#444444' lw 1.5 front
set object 101 rect from graph 0, first 18.5 to graph 1, first 19.5 fc rgb '#E000E0' fs solid 0.35 noborder behind
set object 102 rect from graph 0, first 19.5 to graph 1, first 20.5 fc rgb '#F0B000' fs solid 0.35 noborder behind
set arrow from graph 0, first 19.5 to graph 1, first 19.5 nohead lc rgb '#444444' lw 1.5 front
unset object
unset label
set xtics ('8 B' 0, '16 B' 1, '64 B' 2, '256 B' 3, '1 KiB' 4, '4 KiB' 5, '16 KiB' 6, '64 KiB' 7, '256 KiB' 8, '1 MiB' 9, '4 MiB' 10) rotate by 30 right
set xrange [-0.5:10.5]
set title 'throughput (on time per byte)' font ',13'
plot 'compare_heatmap.dat' index 1 using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror fs solid 1.0 noborder lc palette notitle, \
  '' index 1 using 1:2:4 with labels font ',8' notitle
unset arrow
unset multiplot
set output
}
