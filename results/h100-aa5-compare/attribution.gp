# attribution.gp - latency difference split into CUDA calls x cost and the rest
# Written by ringbench; re-run it from this directory: gnuplot attribution.gp
# It writes attribution.png (pngcairo, or png without cairo) and attribution.svg, 1400 x 700 pixels.
do for [fmt in "png svg"] {
reset
if (fmt eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,700 font "sans,11" noenhanced background rgb 'white'
  } else {
    set terminal png size 1400,700 noenhanced
  }
  set output 'attribution.png'
} else {
  set terminal svg size 1400,700 font "sans,11" noenhanced background rgb 'white'
  set output 'attribution.svg'
}
set datafile missing 'NaN'
set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1
set title 'What the CUDA calls explain: OTHER against BASE (measured costs)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set ylabel 'us'
set xtics rotate by -40 left font ',9'
set key top left
plot 'attribution.dat' using 2:xtic(1) title 'BASE p50' lc rgb '#BBBBBB', \
     '' using 3 title 'per-call costs changed (counts x delta cost)' lc rgb '#D62728', \
     '' using 4 title 'number of calls changed' lc rgb '#FF9896', \
     '' using 5 title 'remainder: PCIe, memory, scheduling' lc rgb '#1F77B4'
unset multiplot
set output
}
