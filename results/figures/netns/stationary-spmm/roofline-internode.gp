# Roofline figure written by rooftune; regenerate with: gnuplot roofline-internode.gp
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
set title 'Roofline: cpu-host (inter-node)'
set logscale xy
set xlabel 'inter-node arithmetic intensity (flop / network byte, global tier)'
set ylabel 'GFLOP/s per rank'
set xrange [0.1:10000]
set yrange [0.01:100000]
# The plot area is pinned: the tags' places in the .dat were computed for it.
set lmargin at screen 0.100
set rmargin at screen 0.600
set bmargin at screen 0.110
set tmargin at screen 0.910
set key font ',10' spacing 1
set format x '%g'
set format y '%g'
set samples 1000
# A roof: bandwidth (GB/s) x intensity, capped at the peak (GFLOP/s).
roof(x, bw, peak) = (x * bw < peak) ? x * bw : peak
set datafile separator '\t'
# Key table: the tagged points, the best of each (kernel, matrix).
set label 'tagged: best of each kernel and matrix' at screen 0.6200,0.5663 left font ',8'
set label ' 1  cpu.stationary_c rmat-17-fig1 fp32 pr:0 prefetch:0 refin...' at screen 0.6200,0.5467 left font ',8'
set label ' 2  cpu.stationary_a rmat-17-fig1 fp32 pr:0 prefetch:1 queue...' at screen 0.6200,0.5272 left font ',8'
set label ' 3  cpu.stationary_b rmat-17-fig1 fp32 pr:0 prefetch:1 queue...' at screen 0.6200,0.5077 left font ',8'
set label ' 4  cpu.summa rmat-17-fig1 fp32 pr:0 refine:1' at screen 0.6200,0.4881 left font ',8'
set label ' 5  cpu.summa_a rmat-17-fig1 fp32 pr:0 refine:1' at screen 0.6200,0.4686 left font ',8'
set label ' 6  cpu.ws_random rmat-17-fig1 fp32 pr:0 prefetch:1 queue_sl...' at screen 0.6200,0.4491 left font ',8'
set label ' 7  cpu.ws_locality rmat-17-fig1 fp32 pr:0 prefetch:1 queue_...' at screen 0.6200,0.4295 left font ',8'

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'roofline-internode.png'
plot \
  roof(x, 50, 20000) dt 2 lc 1 title 'network (global) spec 50 GB/s', \
  20000 dt 2 lc 4 title 'fp32 peak spec 20000 GFLOP/s', \
  10000 dt 2 lc 5 title 'fp64 peak spec 10000 GFLOP/s', \
  'roofline-internode.dat' using 2:5 with points pt 1 ps 1.5 lc rgb '#808080' title 'local roofline peak of the point', \
  'roofline-internode.dat' using 2:($8 == 0 ? $3 : NaN) with points pt 7 ps 1.2 lc rgb '#0072B2' title 'spmm2d.cpu.stationary_c', \
  'roofline-internode.dat' using 2:($8 == 1 ? $3 : NaN) with points pt 5 ps 1.2 lc rgb '#D55E00' title 'spmm2d.cpu.stationary_a', \
  'roofline-internode.dat' using 2:($8 == 2 ? $3 : NaN) with points pt 9 ps 1.2 lc rgb '#009E73' title 'spmm2d.cpu.stationary_b', \
  'roofline-internode.dat' using 2:($8 == 3 ? $3 : NaN) with points pt 11 ps 1.2 lc rgb '#CC79A7' title 'spmm2d.cpu.summa', \
  'roofline-internode.dat' using 2:($8 == 4 ? $3 : NaN) with points pt 13 ps 1.2 lc rgb '#E69F00' title 'spmm2d.cpu.summa_a', \
  'roofline-internode.dat' using 2:($8 == 5 ? $3 : NaN) with points pt 15 ps 1.2 lc rgb '#56B4E9' title 'spmm2d.cpu.ws_random', \
  'roofline-internode.dat' using 2:($8 == 6 ? $3 : NaN) with points pt 7 ps 1.2 lc rgb '#000000' title 'spmm2d.cpu.ws_locality', \
  'roofline-internode.dat' using 2:($6 > 0 ? $3 : NaN) with points pt 6 ps 2.2 lw 2 lc rgb '#d62728' title 'flagged above the roofline', \
  'roofline-internode.dat' using 2:3:($12 - $2):($13 - $3) with vectors nohead lw 1 lc rgb '#909090' notitle, \
  'roofline-internode.dat' using 10:11:(stringcolumn(9)) with labels left font ',9' tc rgb '#202020' notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'roofline-internode.svg'
plot \
  roof(x, 50, 20000) dt 2 lc 1 title 'network (global) spec 50 GB/s', \
  20000 dt 2 lc 4 title 'fp32 peak spec 20000 GFLOP/s', \
  10000 dt 2 lc 5 title 'fp64 peak spec 10000 GFLOP/s', \
  'roofline-internode.dat' using 2:5 with points pt 1 ps 1.5 lc rgb '#808080' title 'local roofline peak of the point', \
  'roofline-internode.dat' using 2:($8 == 0 ? $3 : NaN) with points pt 7 ps 1.2 lc rgb '#0072B2' title 'spmm2d.cpu.stationary_c', \
  'roofline-internode.dat' using 2:($8 == 1 ? $3 : NaN) with points pt 5 ps 1.2 lc rgb '#D55E00' title 'spmm2d.cpu.stationary_a', \
  'roofline-internode.dat' using 2:($8 == 2 ? $3 : NaN) with points pt 9 ps 1.2 lc rgb '#009E73' title 'spmm2d.cpu.stationary_b', \
  'roofline-internode.dat' using 2:($8 == 3 ? $3 : NaN) with points pt 11 ps 1.2 lc rgb '#CC79A7' title 'spmm2d.cpu.summa', \
  'roofline-internode.dat' using 2:($8 == 4 ? $3 : NaN) with points pt 13 ps 1.2 lc rgb '#E69F00' title 'spmm2d.cpu.summa_a', \
  'roofline-internode.dat' using 2:($8 == 5 ? $3 : NaN) with points pt 15 ps 1.2 lc rgb '#56B4E9' title 'spmm2d.cpu.ws_random', \
  'roofline-internode.dat' using 2:($8 == 6 ? $3 : NaN) with points pt 7 ps 1.2 lc rgb '#000000' title 'spmm2d.cpu.ws_locality', \
  'roofline-internode.dat' using 2:($6 > 0 ? $3 : NaN) with points pt 6 ps 2.2 lw 2 lc rgb '#d62728' title 'flagged above the roofline', \
  'roofline-internode.dat' using 2:3:($12 - $2):($13 - $3) with vectors nohead lw 1 lc rgb '#909090' notitle, \
  'roofline-internode.dat' using 10:11:(stringcolumn(9)) with labels left font ',9' tc rgb '#202020' notitle
unset output
