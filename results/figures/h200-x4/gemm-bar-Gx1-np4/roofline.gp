# Roofline figure written by rooftune; regenerate with: gnuplot roofline.gp
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
set title 'Roofline: h200-x4'
set logscale xy
set xlabel 'arithmetic intensity (flop / DRAM byte)'
set ylabel 'GFLOP/s per rank'
set xrange [0.01:10000]
set yrange [1:1e+06]
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
set label 'tagged: best of each kernel and matrix' at screen 0.6200,0.5405 left font ',8'
set label ' 1  cuda.cublas dense fp64 math_mode:fp64_emulated' at screen 0.6200,0.5209 left font ',8'

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'roofline.png'
plot \
  roof(x, 4800, 67000) dt 2 lc 1 title 'dram spec 4800 GB/s', \
  roof(x, 12000, 67000) dt 2 lc 2 title 'l2 spec 12000 GB/s', \
  roof(x, 33400, 67000) dt 2 lc 3 title 'shared spec 33400 GB/s', \
  67000 dt 2 lc 4 title 'fp32 peak spec 67000 GFLOP/s', \
  34000 dt 2 lc 5 title 'fp64 peak spec 34000 GFLOP/s', \
  roof(x, 3998, 65171.5) dt 1 lc 1 title 'dram measured 3998 GB/s', \
  roof(x, 7630.9, 65171.5) dt 1 lc 2 title 'l2 measured 7630.9 GB/s', \
  roof(x, 33009.5, 65171.5) dt 1 lc 3 title 'shared measured 33010 GB/s', \
  65171.5 dt 1 lc 4 title 'fp32 peak measured 65172 GFLOP/s', \
  33396.8 dt 1 lc 5 title 'fp64 peak measured 33397 GFLOP/s', \
  'roofline.dat' using 2:($8 == 0 ? $3 : NaN) with points pt 7 ps 1.2 lc rgb '#0072B2' title 'gemm.cuda.cublas', \
  'roofline.dat' using 4:3 with points pt 6 ps 1.2 lc rgb '#000000' title 'counted DRAM traffic (hollow)', \
  'roofline.dat' using 2:($6 > 0 ? $3 : NaN) with points pt 6 ps 2.2 lw 2 lc rgb '#d62728' title 'flagged above the roofline', \
  'roofline.dat' using 2:3:($12 - $2):($13 - $3) with vectors nohead lw 1 lc rgb '#909090' notitle, \
  'roofline.dat' using 10:11:(stringcolumn(9)) with labels left font ',9' tc rgb '#202020' notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'roofline.svg'
plot \
  roof(x, 4800, 67000) dt 2 lc 1 title 'dram spec 4800 GB/s', \
  roof(x, 12000, 67000) dt 2 lc 2 title 'l2 spec 12000 GB/s', \
  roof(x, 33400, 67000) dt 2 lc 3 title 'shared spec 33400 GB/s', \
  67000 dt 2 lc 4 title 'fp32 peak spec 67000 GFLOP/s', \
  34000 dt 2 lc 5 title 'fp64 peak spec 34000 GFLOP/s', \
  roof(x, 3998, 65171.5) dt 1 lc 1 title 'dram measured 3998 GB/s', \
  roof(x, 7630.9, 65171.5) dt 1 lc 2 title 'l2 measured 7630.9 GB/s', \
  roof(x, 33009.5, 65171.5) dt 1 lc 3 title 'shared measured 33010 GB/s', \
  65171.5 dt 1 lc 4 title 'fp32 peak measured 65172 GFLOP/s', \
  33396.8 dt 1 lc 5 title 'fp64 peak measured 33397 GFLOP/s', \
  'roofline.dat' using 2:($8 == 0 ? $3 : NaN) with points pt 7 ps 1.2 lc rgb '#0072B2' title 'gemm.cuda.cublas', \
  'roofline.dat' using 4:3 with points pt 6 ps 1.2 lc rgb '#000000' title 'counted DRAM traffic (hollow)', \
  'roofline.dat' using 2:($6 > 0 ? $3 : NaN) with points pt 6 ps 2.2 lw 2 lc rgb '#d62728' title 'flagged above the roofline', \
  'roofline.dat' using 2:3:($12 - $2):($13 - $3) with vectors nohead lw 1 lc rgb '#909090' notitle, \
  'roofline.dat' using 10:11:(stringcolumn(9)) with labels left font ',9' tc rgb '#202020' notitle
unset output
