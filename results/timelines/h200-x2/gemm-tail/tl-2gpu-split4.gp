# Timeline figure written by rooftune; regenerate with: gnuplot tl-2gpu-split4.gp
reset
set encoding utf8
set linetype 1 lc rgb '#0072B2' lw 2 pt 5 ps 1.1 dt 1
set linetype 2 lc rgb '#D55E00' lw 2 pt 7 ps 1.1 dt 1
set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 1.1 dt 1
set linetype 4 lc rgb '#CC79A7' lw 2 pt 11 ps 1.1 dt 1
set linetype 5 lc rgb '#E69F00' lw 2 pt 5 ps 1.1 dt 1
set linetype 6 lc rgb '#56B4E9' lw 2 pt 7 ps 1.1 dt 1
set linetype 7 lc rgb '#000000' lw 2 pt 9 ps 1.1 dt 1
set linetype 8 lc rgb '#F0E442' lw 2 pt 11 ps 1.1 dt 1
set linetype cycle 8
set border 3 lc rgb '#404040'
set tics nomirror out
set grid xtics ytics back lt 1 lc rgb '#dcdcdc' lw 1
set key outside right top vertical Left reverse samplen 2 spacing 1.2
set title 'GPU timeline'
set xlabel 'time (ms) from the first record'
set xrange [0:*]
# Lanes top to bottom: each GPU's kernels, H2D, D2H, P2P/D2D copies.
set yrange [7.5:-0.5]
set ytics ('GPU 0 kernels' 0, 'GPU 0 H2D' 1, 'GPU 0 D2H' 2, 'GPU 0 P2P/D2D' 3, 'GPU 1 kernels' 4, 'GPU 1 H2D' 5, 'GPU 1 D2H' 6, 'GPU 1 P2P/D2D' 7)
set grid xtics noytics
set arrow from graph 0, first 3.5 to graph 1, first 3.5 nohead lc rgb '#808080'
set datafile separator '\t'
set style fill solid 0.85 noborder

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'tl-2gpu-split4.png'
plot \
  'tl-2gpu-split4.dat' index 0 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#1f77b4' title 'kernel', \
  'tl-2gpu-split4.dat' index 1 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#2ca02c' title 'h2d', \
  'tl-2gpu-split4.dat' index 2 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#d62728' title 'd2h', \
  'tl-2gpu-split4.dat' index 3 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#ff7f0e' title 'p2p'

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'tl-2gpu-split4.svg'
plot \
  'tl-2gpu-split4.dat' index 0 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#1f77b4' title 'kernel', \
  'tl-2gpu-split4.dat' index 1 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#2ca02c' title 'h2d', \
  'tl-2gpu-split4.dat' index 2 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#d62728' title 'd2h', \
  'tl-2gpu-split4.dat' index 3 using 2:1:2:3:($1 - 0.38):($1 + 0.38) with boxxyerror lc rgb '#ff7f0e' title 'p2p'
unset output
