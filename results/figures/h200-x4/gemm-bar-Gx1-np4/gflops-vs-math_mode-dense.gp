# rooftune figure 'gflops-vs-math_mode-dense' (line): gflops against math_mode, one line per kernel
# Reads gflops-vs-math_mode-dense.dat from this folder and writes gflops-vs-math_mode-dense.png and gflops-vs-math_mode-dense.svg next to it.
# Regenerate: cd results/figures/h200-x4/gemm-bar-Gx1-np4 && gnuplot gflops-vs-math_mode-dense.gp

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
set title 'gemm-bar-Gx1: GFLOP/s vs math_mode on dense'
set xlabel 'math_mode'
set ylabel 'performance (GFLOP/s)'
set xtics ('default' 0, 'fp64_emulated' 1, 'pedantic' 2)
set xrange [-0.6:2.6]
set yrange [0:*]

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'gflops-vs-math_mode-dense.png'
plot 'gflops-vs-math_mode-dense.dat' index 0 using 1:3 with linespoints lt 1 dt 1 title 'gemm.cuda.cublas'

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'gflops-vs-math_mode-dense.svg'
plot 'gflops-vs-math_mode-dense.dat' index 0 using 1:3 with linespoints lt 1 dt 1 title 'gemm.cuda.cublas'
unset output
