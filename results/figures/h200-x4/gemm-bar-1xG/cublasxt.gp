# rooftune figure 'cublasxt' (bars): best gflops per xt_gpus, one bar per xt_block
# Reads cublasxt.dat from this folder and writes cublasxt.png and cublasxt.svg next to it.
# Regenerate: cd results/figures/h200-x4/gemm-bar-1xG && gnuplot cublasxt.gp

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
set title 'cublasXt, FP64, N = 32768, pinned host data: GFLOP/s by block dimension'
set xlabel 'xt_gpus'
set ylabel 'performance (GFLOP/s)'
set style fill solid 0.85 border lc rgb '#404040'
set boxwidth 0.266667 absolute
set grid noxtics
set xtics ('1' 0, '2' 1, '4' 2)
set xrange [-0.6:2.6]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'cublasxt.png'
plot 'cublasxt.dat' using ($0-0.266667):2 with boxes lt 1 dt 1 title '8192', \
     '' using ($0+0):3 with boxes lt 2 dt 1 title '12288', \
     '' using ($0+0.266667):4 with boxes lt 3 dt 1 title '16384', \
     '' using ($0-0.266667):2:(gprintf('%.4g', column(2))) with labels center offset 0,0.7 font ',9' notitle, \
     '' using ($0+0):3:(gprintf('%.4g', column(3))) with labels center offset 0,0.7 font ',9' notitle, \
     '' using ($0+0.266667):4:(gprintf('%.4g', column(4))) with labels center offset 0,0.7 font ',9' notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'cublasxt.svg'
plot 'cublasxt.dat' using ($0-0.266667):2 with boxes lt 1 dt 1 title '8192', \
     '' using ($0+0):3 with boxes lt 2 dt 1 title '12288', \
     '' using ($0+0.266667):4 with boxes lt 3 dt 1 title '16384', \
     '' using ($0-0.266667):2:(gprintf('%.4g', column(2))) with labels center offset 0,0.7 font ',9' notitle, \
     '' using ($0+0):3:(gprintf('%.4g', column(3))) with labels center offset 0,0.7 font ',9' notitle, \
     '' using ($0+0.266667):4:(gprintf('%.4g', column(4))) with labels center offset 0,0.7 font ',9' notitle
unset output
