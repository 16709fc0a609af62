# rooftune figure 'pareto-time_median_s-energy_j-2' (pareto): every point of the sweep and its Pareto front
# Reads pareto-time_median_s-energy_j-2.dat from this folder and writes pareto-time_median_s-energy_j-2.png and pareto-time_median_s-energy_j-2.svg next to it.
# Regenerate: cd /tmp/tp/pareto && gnuplot pareto-time_median_s-energy_j-2.gp

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
set title 'spmm.cuda.tiled on xct-256-hilbert: 3 on the front of 32'
set xlabel 'time_median_s (lower is better)'
set ylabel 'energy_j (lower is better)'

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'pareto-time_median_s-energy_j-2.png'
plot 'pareto-time_median_s-energy_j-2.dat' index 0 using 1:2 with points pt 7 ps 0.6 lc rgb '#999999' title 'points', '' index 1 using 1:2 with linespoints lw 2 pt 7 ps 1.0 title 'Pareto front'

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'pareto-time_median_s-energy_j-2.svg'
plot 'pareto-time_median_s-energy_j-2.dat' index 0 using 1:2 with points pt 7 ps 0.6 lc rgb '#999999' title 'points', '' index 1 using 1:2 with linespoints lw 2 pt 7 ps 1.0 title 'Pareto front'
unset output
