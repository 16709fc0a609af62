# rooftune figure 'fig4-scaling' (scaling): time_median_s against ranks (log2), with the ideal dashed
# Reads fig4-scaling.dat from this folder and writes fig4-scaling.png and fig4-scaling.svg next to it.
# Regenerate: cd results/figures/netns/stationary-spmm && gnuplot fig4-scaling.gp

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
set title 'Strong scaling of the 2D SpMM variants'
set xlabel 'ranks'
set ylabel 'median time (seconds)'
set logscale x 2
set format x '%g'
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set logscale y 10
set format y '%g'

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'fig4-scaling.png'
plot 'fig4-scaling.dat' index 0 using 1:2 with linespoints lt 1 dt 1 title 'spmm2d.cpu.stationary_a', \
     '' index 0 using 1:3 with lines lt 1 dt 2 lw 1 title 'ideal (dashed)', \
     '' index 1 using 1:2 with linespoints lt 2 dt 1 title 'spmm2d.cpu.stationary_b', \
     '' index 1 using 1:3 with lines lt 2 dt 2 lw 1 notitle, \
     '' index 2 using 1:2 with linespoints lt 3 dt 1 title 'spmm2d.cpu.stationary_c', \
     '' index 2 using 1:3 with lines lt 3 dt 2 lw 1 notitle, \
     '' index 3 using 1:2 with linespoints lt 4 dt 1 title 'spmm2d.cpu.summa', \
     '' index 3 using 1:3 with lines lt 4 dt 2 lw 1 notitle, \
     '' index 4 using 1:2 with linespoints lt 5 dt 1 title 'spmm2d.cpu.summa_a', \
     '' index 4 using 1:3 with lines lt 5 dt 2 lw 1 notitle, \
     '' index 5 using 1:2 with linespoints lt 6 dt 1 title 'spmm2d.cpu.ws_locality', \
     '' index 5 using 1:3 with lines lt 6 dt 2 lw 1 notitle, \
     '' index 6 using 1:2 with linespoints lt 7 dt 1 title 'spmm2d.cpu.ws_random', \
     '' index 6 using 1:3 with lines lt 7 dt 2 lw 1 notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'fig4-scaling.svg'
plot 'fig4-scaling.dat' index 0 using 1:2 with linespoints lt 1 dt 1 title 'spmm2d.cpu.stationary_a', \
     '' index 0 using 1:3 with lines lt 1 dt 2 lw 1 title 'ideal (dashed)', \
     '' index 1 using 1:2 with linespoints lt 2 dt 1 title 'spmm2d.cpu.stationary_b', \
     '' index 1 using 1:3 with lines lt 2 dt 2 lw 1 notitle, \
     '' index 2 using 1:2 with linespoints lt 3 dt 1 title 'spmm2d.cpu.stationary_c', \
     '' index 2 using 1:3 with lines lt 3 dt 2 lw 1 notitle, \
     '' index 3 using 1:2 with linespoints lt 4 dt 1 title 'spmm2d.cpu.summa', \
     '' index 3 using 1:3 with lines lt 4 dt 2 lw 1 notitle, \
     '' index 4 using 1:2 with linespoints lt 5 dt 1 title 'spmm2d.cpu.summa_a', \
     '' index 4 using 1:3 with lines lt 5 dt 2 lw 1 notitle, \
     '' index 5 using 1:2 with linespoints lt 6 dt 1 title 'spmm2d.cpu.ws_locality', \
     '' index 5 using 1:3 with lines lt 6 dt 2 lw 1 notitle, \
     '' index 6 using 1:2 with linespoints lt 7 dt 1 title 'spmm2d.cpu.ws_random', \
     '' index 6 using 1:3 with lines lt 7 dt 2 lw 1 notitle
unset output
