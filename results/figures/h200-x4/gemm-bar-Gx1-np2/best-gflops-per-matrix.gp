# rooftune figure 'best-gflops-per-matrix' (bars): best gflops per matrix, one bar per kernel
# Reads best-gflops-per-matrix.dat from this folder and writes best-gflops-per-matrix.png and best-gflops-per-matrix.svg next to it.
# Regenerate: cd results/figures/h200-x4/gemm-bar-Gx1-np2 && gnuplot best-gflops-per-matrix.gp

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
set datafile missing '?'
set title 'gemm-bar-Gx1: best GFLOP/s per matrix and kernel'
set xlabel 'matrix'
set ylabel 'performance (GFLOP/s)'
set style fill solid 0.85 border lc rgb '#404040'
set boxwidth 0.4 absolute
set grid noxtics
set xtics ('dense' 0)
set xrange [-0.6:0.6]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'best-gflops-per-matrix.png'
plot 'best-gflops-per-matrix.dat' using ($0-0.2):2 with boxes lt 1 dt 1 title 'gemm.cuda.cublas', \
     '' using ($0+0.2):3 with boxes lt 2 dt 1 title 'gemm.cuda.tiled', \
     '' using ($0-0.2):2:(gprintf('%.4g', column(2))) with labels center offset 0,0.7 font ',9' notitle, \
     '' using ($0+0.2):3:(gprintf('%.4g', column(3))) with labels center offset 0,0.7 font ',9' notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'best-gflops-per-matrix.svg'
plot 'best-gflops-per-matrix.dat' using ($0-0.2):2 with boxes lt 1 dt 1 title 'gemm.cuda.cublas', \
     '' using ($0+0.2):3 with boxes lt 2 dt 1 title 'gemm.cuda.tiled', \
     '' using ($0-0.2):2:(gprintf('%.4g', column(2))) with labels center offset 0,0.7 font ',9' notitle, \
     '' using ($0+0.2):3:(gprintf('%.4g', column(3))) with labels center offset 0,0.7 font ',9' notitle
unset output
