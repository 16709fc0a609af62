# rooftune figure 'gflops-per-gpu-vs-tile' (box): Tukey box plots of the samples of the best point per t
# Reads gflops-per-gpu-vs-tile.dat from this folder and writes gflops-per-gpu-vs-tile.png and gflops-per-gpu-vs-tile.svg next to it.
# Regenerate: cd results/figures/h100/gemm-tile-size && gnuplot gflops-per-gpu-vs-tile.gp

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
set title 'Tiled GEMM, FP64, N = 20480: GFLOP/s per GPU against the tile size (Tukey boxes)'
set xlabel 't'
set ylabel 'performance (GFLOP/s)'
set style fill solid 0.35 border
set boxwidth 0.32 absolute
set grid noxtics
set xtics ('256' 0, '512' 1, '1024' 2, '2048' 3, '4096' 4)
set xrange [-0.6:4.6]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'gflops-per-gpu-vs-tile.png'
plot 'gflops-per-gpu-vs-tile.dat' index 0 using 1:3:4:5:6 with candlesticks whiskerbars 0.5 lt 1 dt 1 title '0', \
     '' index 0 using 1:7:7:7:7 with candlesticks lt -1 lw 2 notitle, \
     '' index 1 using 1:3:4:5:6 with candlesticks whiskerbars 0.5 lt 2 dt 1 title '4294967296', \
     '' index 1 using 1:7:7:7:7 with candlesticks lt -1 lw 2 notitle, \
     '' index 2 using 1:2 with points pt 6 ps 0.8 lc rgb '#404040' title 'outliers'

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'gflops-per-gpu-vs-tile.svg'
plot 'gflops-per-gpu-vs-tile.dat' index 0 using 1:3:4:5:6 with candlesticks whiskerbars 0.5 lt 1 dt 1 title '0', \
     '' index 0 using 1:7:7:7:7 with candlesticks lt -1 lw 2 notitle, \
     '' index 1 using 1:3:4:5:6 with candlesticks whiskerbars 0.5 lt 2 dt 1 title '4294967296', \
     '' index 1 using 1:7:7:7:7 with candlesticks lt -1 lw 2 notitle, \
     '' index 2 using 1:2 with points pt 6 ps 0.8 lc rgb '#404040' title 'outliers'
unset output
