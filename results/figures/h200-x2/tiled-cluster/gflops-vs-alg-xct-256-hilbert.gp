# rooftune figure 'gflops-vs-alg-xct-256-hilbert' (line): gflops against alg, one line per kernel
# Reads gflops-vs-alg-xct-256-hilbert.dat from this folder and writes gflops-vs-alg-xct-256-hilbert.png and gflops-vs-alg-xct-256-hilbert.svg next to it.
# Regenerate: cd results/figures/h200-x2/tiled-cluster && gnuplot gflops-vs-alg-xct-256-hilbert.gp

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
set title 'tiled-cluster: GFLOP/s vs alg on xct-256-hilbert'
set xlabel 'alg'
set ylabel 'performance (GFLOP/s)'
set xtics ('coo_alg1' 0, 'coo_alg2' 1, 'coo_alg3' 2, 'coo_alg4' 3, 'csr_alg1' 4, 'csr_alg2' 5, 'csr_alg3' 6, 'default' 7)
set xrange [-0.6:7.6]
set yrange [0:*]

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'gflops-vs-alg-xct-256-hilbert.png'
plot 'gflops-vs-alg-xct-256-hilbert.dat' index 0 using 1:3 with linespoints lt 1 dt 1 title 'spmm.cuda.cusparse'

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'gflops-vs-alg-xct-256-hilbert.svg'
plot 'gflops-vs-alg-xct-256-hilbert.dat' index 0 using 1:3 with linespoints lt 1 dt 1 title 'spmm.cuda.cusparse'
unset output
